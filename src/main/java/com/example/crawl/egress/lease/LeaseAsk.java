package com.example.crawl.egress.lease;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What a client asks of {@link LeaseService#acquire}: which proxies, for which site, for how long,
 * and whether in a sticky session.
 *
 * @param selector  attributes a proxy must have, all of them; empty matches every proxy
 * @param target    the site the client will crawl, if it says
 * @param ttl       the lease's lifetime, from zero (exclusive) to the service's {@link LeaseService#maxTtl()}
 * @param diversity how far the lease's egress must be from the site's other running leases; only
 *                  with a target
 * @param session   the sticky session the lease is for, if any; the client's own, whose ids are
 *                  apart from every other client's
 * @param client    the client asking, whose quota and share hold; empty for the operator's own token
 */
public record LeaseAsk(Map<String, String> selector, Optional<String> target, Duration ttl, Diversity diversity,
        Optional<Session> session, Optional<LeaseClient> client) {

    public LeaseAsk {
        selector = Map.copyOf(selector);
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(ttl, "ttl");
        Objects.requireNonNull(diversity, "diversity");
        if (diversity != Diversity.NONE && target.isEmpty()) {
            throw new IllegalArgumentException("diversity is among the leases of one site: it needs a target");
        }
        Objects.requireNonNull(session, "session");
        Objects.requireNonNull(client, "client");
    }

    /** An ask with the operator's own token. */
    public LeaseAsk(Map<String, String> selector, Optional<String> target, Duration ttl, Diversity diversity,
            Optional<Session> session) {
        this(selector, target, ttl, diversity, session, Optional.empty());
    }

    /** An ask outside any session. */
    public LeaseAsk(Map<String, String> selector, Optional<String> target, Duration ttl, Diversity diversity) {
        this(selector, target, ttl, diversity, Optional.empty());
    }

    /** An ask without diversity, outside any session. */
    public LeaseAsk(Map<String, String> selector, Optional<String> target, Duration ttl) {
        this(selector, target, ttl, Diversity.NONE);
    }

    /**
     * A sticky session: leases asked with one {@code id} go to the proxy its last lease went to
     * while that proxy may be lent; the session ends {@code ttl} after its last lease.
     *
     * @param id     the client's name for it: 1 to {@value #MAX_ID_LENGTH} of {@code [A-Za-z0-9._~:-]},
     *               which bounds what the store keeps per session
     * @param ttl    how long it lasts after this lease, from zero (exclusive) to the service's
     *               {@link LeaseService#maxSessionTtl()}
     * @param strict when the proxy may not be lent: refuse ({@link Acquisition.SessionUnavailable})
     *               rather than move the session to another
     */
    public record Session(String id, Duration ttl, boolean strict) {

        /** The longest session id. */
        public static final int MAX_ID_LENGTH = 128;
        private static final Pattern ID = Pattern.compile("[A-Za-z0-9._~:-]{1," + MAX_ID_LENGTH + "}");

        public Session {
            if (!validId(id)) {
                throw new IllegalArgumentException("not a session id: " + id);
            }
            Objects.requireNonNull(ttl, "ttl");
        }

        /** Whether {@code key} is a session's id, or a client's name, a slash and its session's id. */
        static boolean validKey(String key) {
            int slash = key == null ? -1 : key.indexOf('/');
            return slash < 0 ? validId(key) : slash > 0 && slash <= LeaseClient.MAX_NAME_BYTES
                    && validId(key.substring(slash + 1));
        }

        /** Whether {@code id} may name a session. */
        public static boolean validId(String id) {
            return id != null && id.length() <= MAX_ID_LENGTH && ID.matcher(id).matches();
        }
    }
}
