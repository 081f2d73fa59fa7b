package com.example.crawl.egress.api;

/**
 * Reasons the pool controller writes into a {@link ProxyPool}'s conditions; the constant's name is
 * the API value. docs/troubleshooting.md explains each.
 */
public enum PoolReason {
    /** Available=True: at least {@code replicas - maxUnavailable} members are Ready. */
    MinimumMembersReady,
    /** Available=False: fewer than {@code replicas - maxUnavailable} members are Ready. */
    TooFewMembersReady,
    /** Progressing=True: members are being created, replaced or removed. */
    Reconciling,
    /** Progressing=False: exactly {@code replicas} members, all up to date and Ready, nothing pending. */
    Complete,
    /** ReplicaFailure=True: the template (with a placement) makes invalid members; nothing is created. */
    InvalidTemplate,
    /** ReplicaFailure=True: creating a member failed; retried with backoff. */
    CreateFailed
}
