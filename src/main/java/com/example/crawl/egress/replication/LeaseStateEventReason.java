package com.example.crawl.egress.replication;

import com.example.crawl.egress.runtime.EventReason;

/** Why the lease service records an Event about one of its Secrets. */
public enum LeaseStateEventReason implements EventReason {
    /** The state or key Secret was edited or deleted by hand; the leader wrote it again from memory. */
    LeaseStateRebuilt(Type.Warning, "Rebuild"),
    /** The state Secret is of a newer format than this build reads; the leader does not serve leases. */
    LeaseStateRefused(Type.Warning, "Load");

    private final Type type;
    private final String action;

    LeaseStateEventReason(Type type, String action) {
        this.type = type;
        this.action = action;
    }

    @Override
    public Type type() {
        return type;
    }

    @Override
    public String action() {
        return action;
    }
}
