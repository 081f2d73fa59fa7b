package com.example.crawl.egress.controller;

import java.util.Objects;

/**
 * One thing worth telling a person about a Proxy, as the control loop saw it.
 *
 * @param key    the Proxy's namespace and name
 * @param uid    the Proxy's UID, so that an Event names this object and not a later one of the
 *               same name
 * @param reason why; fixes the Event's type and action
 * @param note   what happened, for people: a sentence with the instance, the cause or the error;
 *               never a secret
 */
public record ProxyEvent(ProxyKey key, String uid, EventReason reason, String note) {

    public ProxyEvent {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(uid, "uid");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(note, "note");
    }
}
