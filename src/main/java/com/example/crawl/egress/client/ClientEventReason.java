package com.example.crawl.egress.client;

import com.example.crawl.egress.runtime.EventReason;

/** Why the operator records an Event about a client Secret. */
public enum ClientEventReason implements EventReason {
    /** The Secret does not define a client (a key missing, unknown or out of range); it grants nothing. */
    ClientRefused(Type.Warning, "Register");

    private final Type type;
    private final String action;

    ClientEventReason(Type type, String action) {
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
