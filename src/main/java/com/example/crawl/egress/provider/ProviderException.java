package com.example.crawl.egress.provider;

import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What a {@link Provider} call can fail with: a closed family of four, so that the reconciler's
 * answer to each is one exhaustive {@code switch}:
 *
 * <pre>{@code
 * switch (e) {
 *     case ProviderException.NotFound n -> ...      // the instance does not exist
 *     case ProviderException.Transient t -> ...     // retry with backoff
 *     case ProviderException.QuotaExceeded q -> ... // wait, slowly; never Failed
 *     case ProviderException.Permanent p -> ...     // Failed until the spec changes
 * }
 * }</pre>
 *
 * <p>Each provider maps its own SDK's errors onto these classes where it calls the SDK, and
 * says why in a comment there. Anything it cannot place is {@link Transient}: retrying a
 * request that will never work costs only backoff, while giving up on one that would have
 * worked leaves a Proxy {@code Failed} for nothing. {@link #classify} applies that rule to an
 * arbitrary {@code Throwable}.
 *
 * <p>The message should name what failed ("instance zones/europe-west4-a/instances/proxy-x:
 * machine type e2-nano not found in zone"); it reaches a condition message, so it must never
 * carry a secret.
 */
public abstract sealed class ProviderException extends Exception
        permits ProviderException.NotFound, ProviderException.Transient,
                ProviderException.QuotaExceeded, ProviderException.Permanent {

    private ProviderException(String message, Throwable cause) {
        super(Objects.requireNonNull(message, "message"), cause);
    }

    /**
     * {@code t} as a provider error: {@code t} itself if it is one, else the first provider
     * error among its causes, else {@code t} wrapped as {@link Transient} (its message kept,
     * {@code t} as the cause). Never returns null; a cycle in the cause chain ends the walk.
     */
    public static ProviderException classify(Throwable t) {
        Objects.requireNonNull(t, "t");
        Map<Throwable, Boolean> seen = new IdentityHashMap<>();
        for (Throwable c = t; c != null && seen.put(c, Boolean.TRUE) == null; c = c.getCause()) {
            if (c instanceof ProviderException p) {
                return p;
            }
        }
        String message = t.getMessage() == null ? t.getClass().getName() : t.getMessage();
        return new Transient(message, t);
    }

    /**
     * The last cause in {@code t}'s chain ({@code t} itself when it has none): where a client
     * library keeps the I/O error that says what really happened. A cycle in the chain ends the
     * walk. For the providers' own failure classifiers.
     */
    public static Throwable rootCause(Throwable t) {
        Map<Throwable, Boolean> seen = new IdentityHashMap<>();
        Throwable root = Objects.requireNonNull(t, "t");
        while (root.getCause() != null && seen.put(root, Boolean.TRUE) == null) {
            root = root.getCause();
        }
        return root;
    }

    /**
     * The class's simple name ({@code NotFound}, {@code Transient}, {@code QuotaExceeded},
     * {@code Permanent}): the value of metric labels and log fields.
     */
    public final String kind() {
        return switch (this) {
            case NotFound n -> "NotFound";
            case Transient t -> "Transient";
            case QuotaExceeded q -> "QuotaExceeded";
            case Permanent p -> "Permanent";
        };
    }

    /**
     * The instance does not exist (or no longer does). Expected, not exceptional: {@code get}
     * answers a missing instance with it, and the reconciler then creates one.
     */
    public static final class NotFound extends ProviderException {
        public NotFound(String message) {
            super(message, null);
        }

        public NotFound(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * The request may work if repeated: a timeout, a refused connection, a 5xx, a rate limit,
     * and anything no provider has classified. Retried with per-key backoff.
     */
    public static final class Transient extends ProviderException {
        public Transient(String message) {
            super(message, null);
        }

        public Transient(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * The backend is out of quota for this request. A wait rather than a failure: retried on a
     * slow fixed interval, never latched as {@code Failed}.
     */
    public static final class QuotaExceeded extends ProviderException {
        public QuotaExceeded(String message) {
            super(message, null);
        }

        public QuotaExceeded(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * The request cannot succeed as written: a missing required field, an image that does not
     * exist, a denied permission. The Proxy is {@code Failed} until its spec changes; only the
     * delete flow keeps retrying, so that nothing is leaked.
     */
    public static final class Permanent extends ProviderException {
        public Permanent(String message) {
            super(message, null);
        }

        public Permanent(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
