package com.example.crawl.egress.gc;

import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * When something the operator made for a Proxy (an instance, a Secret) is a provable orphan:
 * it names its owner, it is old enough not to be in the middle of a create, and its owner is not
 * among the Proxies the API server just listed. Each way of failing the proof has its own
 * {@link Verdict}, so that the sweep can say why it kept something. Pure; thread-safe.
 *
 * @param minAge an object younger than this is never an orphan: its Proxy may have been created
 *               after the live set was listed, or its status not written yet
 */
record OrphanRule(Duration minAge) {

    /** What the rule concluded; only {@link #ORPHAN} allows a delete. */
    enum Verdict {
        /** Every condition holds: delete it. */
        ORPHAN,
        /** It carries no owner UID: not provably ours, so never deleted. */
        NO_OWNER,
        /** Its creation time is unknown, so its age proves nothing. */
        AGE_UNKNOWN,
        /** Younger than the minimum age: possibly mid-create. */
        TOO_YOUNG,
        /** Its owner exists (possibly being deleted, which its finalizer handles). */
        OWNER_LIVE;

        /** The verdict as a log value: {@code NoOwner}, {@code TooYoung}, ... */
        String label() {
            StringBuilder out = new StringBuilder();
            for (String word : name().split("_")) {
                out.append(word.charAt(0)).append(word.substring(1).toLowerCase(Locale.ROOT));
            }
            return out.toString();
        }
    }

    OrphanRule {
        Objects.requireNonNull(minAge, "minAge");
        if (minAge.isNegative()) {
            throw new IllegalArgumentException("minAge must not be negative: " + minAge);
        }
    }

    /**
     * Judges one object.
     *
     * @param ownerUid  the UID of the Proxy it was made for; null when it carries none
     * @param createdAt when it was made; null when unknown
     * @param live      the UIDs of every Proxy that exists, those being deleted included
     * @param now       the time the age is measured at
     */
    Verdict judge(String ownerUid, Instant createdAt, Set<String> live, Instant now) {
        if (ownerUid == null || ownerUid.isEmpty()) {
            return Verdict.NO_OWNER;
        }
        if (createdAt == null) {
            return Verdict.AGE_UNKNOWN;
        }
        if (Duration.between(createdAt, now).compareTo(minAge) < 0) {
            return Verdict.TOO_YOUNG;
        }
        return live.contains(ownerUid) ? Verdict.OWNER_LIVE : Verdict.ORPHAN;
    }
}
