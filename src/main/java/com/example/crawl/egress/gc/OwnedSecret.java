package com.example.crawl.egress.gc;

import java.time.Instant;
import java.util.Objects;

/**
 * A Secret the operator made for a Proxy, as the sweep judges it. Never holds the Secret's data.
 *
 * @param kind            which of the operator's Secrets it is, and so how its owner was read
 * @param ownerUid        the UID of the Proxy it was made for; null when it names none, and then
 *                        it is never deleted
 * @param createdAt       its {@code creationTimestamp}; null when absent or unreadable
 * @param resourceVersion the version that was listed: the delete is conditional on it, so a Secret
 *                        changed since (taken over by a new pod, say) is judged again next time
 */
record OwnedSecret(Kind kind, String namespace, String name, String ownerUid, Instant createdAt,
        String resourceVersion) {

    /** The operator's two kinds of Secret, each with its label and its way of naming the owner. */
    enum Kind {
        /**
         * A Managed Proxy's credentials ({@code api.CredentialsSecret}): labelled
         * {@code crawl.example.com/proxy-credentials=true}, owned through a controller owner
         * reference of kind {@code Proxy}. Kubernetes' own garbage collector removes it with the
         * Proxy; local mode's API server has none.
         */
        CREDENTIALS("credentials"),
        /**
         * The {@code kubernetes} provider's password-file Secret of a pod: labelled
         * {@code crawl.example.com/managed=true} with the owner in {@code crawl.example.com/owner-uid},
         * like the pod.
         */
        POD_PASSWORD("pod_password");

        private final String label;

        Kind(String label) {
            this.label = label;
        }

        /** The value of log fields and of the metric's {@code kind} label. */
        String label() {
            return label;
        }
    }

    OwnedSecret {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(name, "name");
    }
}
