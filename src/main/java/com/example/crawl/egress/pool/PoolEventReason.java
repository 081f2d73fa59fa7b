package com.example.crawl.egress.pool;

import com.example.crawl.egress.runtime.EventReason;

/**
 * Why the pool controller records an Event. The constant's name is the Event's {@code reason};
 * docs/operations.md says when each is emitted.
 */
public enum PoolEventReason implements EventReason {
    /** A pool created members: the note counts them and names the first few. */
    MembersCreated(Type.Normal, "Scale"),
    /** A pool deleted members (scaled down, or their replacement is in place): counted and named. */
    MembersDeleted(Type.Normal, "Scale"),
    /** A pool decided to replace a member (banned, unhealthy, too old, or made from an old template). */
    MemberRetired(Type.Normal, "Replace"),
    /** A pool could not create a member; retried with backoff. */
    MemberCreateFailed(Type.Warning, "Scale");

    private final Type type;
    private final String action;

    PoolEventReason(Type type, String action) {
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
