package com.example.crawl.egress.controller;

import java.util.Objects;

/**
 * One thing worth telling a person about a Proxy, or a ProxyPool ({@link EventReason#regards}), as a
 * controller saw it.
 *
 * @param key    the object's namespace and name
 * @param uid    the object's UID, so that an Event names this object and not a later one of the
 *               same name
 * @param reason why; fixes the Event's type and action
 * @param note   what happened, for people: a sentence with the instance, the cause or the error;
 *               never a secret
 */
public record ProxyEvent(ObjectKey key, String uid, EventReason reason, String note) {

    public ProxyEvent {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(uid, "uid");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(note, "note");
    }
}
