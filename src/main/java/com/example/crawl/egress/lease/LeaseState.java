package com.example.crawl.egress.lease;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a lease store holds, with wall-clock times, so that another process can take it over: the
 * form in which leases, cooldowns, kept bans, suspected proxies and sessions outlive the process that took
 * them. Lease ids are not in it, only their {@link LeaseIds#digest digests}.
 *
 * @param term      the leadership term of the store it was taken from
 * @param leases    leases held: active, or expired and still taking reports
 * @param cooldowns per {@linkplain Candidate#identity egress identity} and target ({@code ""}: every
 *                  target), its cooldown: running, or ended and still remembered for escalation
 * @param bans      per proxy and target, when it was last banned, for the bans the ban listener keeps
 * @param released  leases of an earlier term released since, by digest, until their report window
 *                  ends: their ids still verify, and must take no report after another takeover
 * @param suspects  proxies that clients' {@code failed} reports keep from new leases until a probe
 *                  succeeds, and since when
 * @param lent      per egress identity and {@linkplain SitePolicy#site site} whose policy paces, when
 *                  it was last lent for the site
 * @param sessions  sticky sessions running, the least recently lent first
 */
public record LeaseState(long term, List<HeldLease> leases, List<CooldownEnd> cooldowns, List<TargetTime> bans,
        List<Released> released, List<Suspect> suspects, List<TargetTime> lent, List<SessionEnd> sessions) {

    /** Holds nothing, in term 0: what a store starts from when no state was ever written. */
    public static final LeaseState EMPTY = new LeaseState(0, List.of(), List.of(), List.of());

    public LeaseState {
        leases = List.copyOf(leases);
        cooldowns = List.copyOf(cooldowns);
        bans = List.copyOf(bans);
        released = List.copyOf(released);
        suspects = List.copyOf(suspects);
        lent = List.copyOf(lent);
        sessions = List.copyOf(sessions);
    }

    /** A state without sessions. */
    public LeaseState(long term, List<HeldLease> leases, List<CooldownEnd> cooldowns, List<TargetTime> bans,
            List<Released> released, List<Suspect> suspects, List<TargetTime> lent) {
        this(term, leases, cooldowns, bans, released, suspects, lent, List.of());
    }

    /** A state in which no proxy is paced. */
    public LeaseState(long term, List<HeldLease> leases, List<CooldownEnd> cooldowns, List<TargetTime> bans,
            List<Released> released, List<Suspect> suspects) {
        this(term, leases, cooldowns, bans, released, suspects, List.of());
    }

    /** A state in which no proxy is suspected. */
    public LeaseState(long term, List<HeldLease> leases, List<CooldownEnd> cooldowns, List<TargetTime> bans,
            List<Released> released) {
        this(term, leases, cooldowns, bans, released, List.of());
    }

    /** A state in which no lease of an earlier term was released and no proxy is suspected. */
    public LeaseState(long term, List<HeldLease> leases, List<CooldownEnd> cooldowns, List<TargetTime> bans) {
        this(term, leases, cooldowns, bans, List.of());
    }

    /**
     * One cooldown of one egress identity ({@code proxyKey}: an address, or the {@code namespace/name}
     * of a proxy whose address was not known) for one target.
     *
     * @param time   when it ends
     * @param length how long its last bad report made it, which the next at least doubles until as
     *               long again has passed after {@code time}; zero once an {@code ok} report forgave it
     * @param kind   the worst outcome it was started or lengthened for
     */
    public record CooldownEnd(String proxyKey, String target, Instant time, Duration length, ReportResult kind) {
        public CooldownEnd {
            Objects.requireNonNull(proxyKey, "proxyKey");
            Objects.requireNonNull(target, "target");
            Objects.requireNonNull(time, "time");
            Objects.requireNonNull(length, "length");
            if (kind != ReportResult.BANNED && kind != ReportResult.RATE_LIMITED) {
                throw new IllegalArgumentException("a cooldown is for rate_limited or banned, not " + kind);
            }
        }
    }

    /** A proxy kept from new leases since {@code since}, until a probe started after then succeeds. */
    public record Suspect(String proxyKey, Instant since) {
        public Suspect {
            Objects.requireNonNull(proxyKey, "proxyKey");
            Objects.requireNonNull(since, "since");
        }
    }

    /** A released lease of an earlier term, and the end of its report window. */
    public record Released(String digest, Instant until) {
        public Released {
            Objects.requireNonNull(digest, "digest");
            Objects.requireNonNull(until, "until");
        }
    }

    /**
     * One lease, as held.
     *
     * @param digest    {@link LeaseIds#digest} of its id
     * @param proxyKey  {@code namespace/name} of the proxy lent
     * @param identity  the proxy's {@linkplain Candidate#identity egress identity} when it was lent
     * @param target    the site the client named, if it did
     * @param expiresAt its end
     * @param client    the client it was granted to; empty for the operator's own token
     */
    public record HeldLease(String digest, String proxyKey, String identity, Optional<String> target,
            Instant expiresAt, Optional<String> client) {
        public HeldLease {
            Objects.requireNonNull(digest, "digest");
            Objects.requireNonNull(proxyKey, "proxyKey");
            Objects.requireNonNull(identity, "identity");
            Objects.requireNonNull(target, "target");
            Objects.requireNonNull(expiresAt, "expiresAt");
            Objects.requireNonNull(client, "client");
        }

        /** A lease granted to the operator's own token. */
        public HeldLease(String digest, String proxyKey, String identity, Optional<String> target, Instant expiresAt) {
            this(digest, proxyKey, identity, target, expiresAt, Optional.empty());
        }

        /** A lease of a proxy whose egress address was not known: its identity is the proxy. */
        public HeldLease(String digest, String proxyKey, Optional<String> target, Instant expiresAt) {
            this(digest, proxyKey, proxyKey, target, expiresAt);
        }
    }

    /**
     * A sticky session: the proxy it was last lent, and when it ends unless another lease renews it.
     * A client's session {@code id} is {@code <client>/<its id>}, the operator's own token's the id alone.
     */
    public record SessionEnd(String id, String proxyKey, Instant expiresAt) {
        public SessionEnd {
            if (!LeaseAsk.Session.validKey(id)) {
                throw new IllegalArgumentException("not a session id: " + id);
            }
            Objects.requireNonNull(proxyKey, "proxyKey");
            Objects.requireNonNull(expiresAt, "expiresAt");
        }
    }

    /** One time of one proxy (for a kept ban) or egress identity (for pacing) for one target. */
    public record TargetTime(String proxyKey, String target, Instant time) {
        public TargetTime {
            Objects.requireNonNull(proxyKey, "proxyKey");
            Objects.requireNonNull(target, "target");
            Objects.requireNonNull(time, "time");
        }
    }
}
