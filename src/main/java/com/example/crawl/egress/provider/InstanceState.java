package com.example.crawl.egress.provider;

/**
 * Where an instance is in its life, as far as the reconciler cares. Each provider maps its
 * backend's states onto these four and documents the mapping; a state it does not know maps to
 * {@link #Stopped} (the reconciler deletes and recreates, always safe for cattle) unless the
 * backend means "cannot tell yet", which maps to {@link #Provisioning}.
 */
public enum InstanceState {
    /** Being created or booting, or running without an address yet: poll again. */
    Provisioning,
    /** Running with an address: ready to be probed. */
    Running,
    /** Exists but does not run: the reconciler deletes it and makes a new one. */
    Stopped,
    /** Gone or going away: the reconciler deletes it (idempotently) and polls for NotFound. */
    Terminated
}
