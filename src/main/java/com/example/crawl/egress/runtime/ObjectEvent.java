package com.example.crawl.egress.runtime;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.Objects;

/**
 * One thing worth telling a person about an object, as a controller saw it: a Proxy, a ProxyPool,
 * whatever the controller reconciles. The Event's {@code regarding} comes from the object itself.
 *
 * @param regarding the object: its kind, namespace, name and UID (so that an Event names this
 *                  object and not a later one of the same name)
 * @param reason    why; fixes the Event's type and action
 * @param note      what happened, for people: a sentence with the instance, the cause or the
 *                  error; never a secret
 */
public record ObjectEvent(Regarding regarding, EventReason reason, String note) {

    public ObjectEvent {
        Objects.requireNonNull(regarding, "regarding");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(note, "note");
    }

    /** An Event about {@code object}, as it was read. */
    public static ObjectEvent about(HasMetadata object, EventReason reason, String note) {
        return new ObjectEvent(Regarding.of(object), reason, note);
    }

    /** The object an Event regards, as {@code events.k8s.io/v1} names it. */
    public record Regarding(String apiVersion, String kind, String namespace, String name, String uid) {

        public Regarding {
            Objects.requireNonNull(apiVersion, "apiVersion");
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(uid, "uid");
        }

        public static Regarding of(HasMetadata object) {
            return new Regarding(object.getApiVersion(), object.getKind(), object.getMetadata().getNamespace(),
                    object.getMetadata().getName(), object.getMetadata().getUid());
        }
    }
}
