package com.example.crawl.egress.lease;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.ObjLongConsumer;

/**
 * Passive health: what clients' {@code failed} reports say of each proxy. {@code threshold}
 * failures of one proxy within {@code window} make it a suspect, which the lease store does not
 * lend until a probe that started after the suspicion succeeds. The probe decides, not the
 * clients: once a probe cleared a proxy, failures reported within the next {@code window} are not
 * counted, so a client that keeps reporting failures of a healthy proxy cannot keep it excluded
 * for more than a probe's time in every window.
 *
 * <p>Bounded: failures are kept only for proxies leases were granted on, at most {@code threshold}
 * of each; suspects at most {@value #MAX_SUSPECTS} (the oldest suspicion then lapses: a proxy
 * that went away is never probed again).
 *
 * <p>Not thread-safe: {@link LeaseStore} calls it under its lock. Times are monotonic-clock
 * readings, compared by subtraction.
 */
final class Suspicions {

    /** Suspects held at most, all proxies together. */
    static final int MAX_SUSPECTS = 50_000;

    private final int threshold;
    private final long window;
    /** Per proxy, the times of its latest failures (at most {@code threshold}), oldest first. */
    private final Map<String, ArrayDeque<Long>> failures = new HashMap<>();
    /** Per suspect, since when; oldest suspicion first. */
    private final LinkedHashMap<String, Long> suspects = new LinkedHashMap<>();
    /** Per proxy a probe cleared, when: failures are not counted until {@code window} after it. */
    private final Map<String, Long> cleared = new HashMap<>();

    Suspicions(int threshold, long windowNanos) {
        if (threshold < 1 || windowNanos <= 0) {
            throw new IllegalArgumentException("threshold and window must be above 0");
        }
        this.threshold = threshold;
        this.window = windowNanos;
    }

    /**
     * A client reported a failure through {@code proxy} at {@code now}.
     *
     * @return whether it made the proxy a suspect just now (the caller asks for a probe)
     */
    boolean failed(String proxy, long now) {
        if (suspects.containsKey(proxy)) {
            return false;
        }
        Long clearedAt = cleared.get(proxy);
        if (clearedAt != null && now - clearedAt < window) {
            return false;
        }
        ArrayDeque<Long> times = failures.computeIfAbsent(proxy, p -> new ArrayDeque<>(threshold));
        times.addLast(now);
        while (times.size() > threshold || now - times.peekFirst() >= window) {
            times.removeFirst();
        }
        if (times.size() < threshold) {
            return false;
        }
        failures.remove(proxy);
        suspect(proxy, now);
        return true;
    }

    /** Whether {@code proxy} is kept from new leases. */
    boolean suspected(String proxy) {
        return suspects.containsKey(proxy);
    }

    /**
     * A probe of {@code proxy} that started at {@code started} ended at {@code now}.
     *
     * @return whether it cleared a suspicion: it succeeded and started no earlier than the suspicion
     */
    boolean probed(String proxy, long started, boolean succeeded, long now) {
        Long since = suspects.get(proxy);
        if (!succeeded || since == null || started - since < 0) {
            return false;
        }
        suspects.remove(proxy);
        cleared.put(proxy, now);
        return true;
    }

    /** Holds {@code proxy} as a suspect since {@code since}: one loaded from a state. */
    void suspect(String proxy, long since) {
        suspects.remove(proxy);
        suspects.put(proxy, since);
        if (suspects.size() > MAX_SUSPECTS) {
            Iterator<String> oldest = suspects.keySet().iterator();
            oldest.next();
            oldest.remove();
        }
    }

    /** Hands every suspect and since when to {@code visitor}, oldest first. */
    void forEachSuspect(ObjLongConsumer<String> visitor) {
        suspects.forEach(visitor::accept);
    }

    /** Forgets failures and clearances older than the window at {@code now}; suspects stay until probed. */
    void sweep(long now) {
        failures.values().removeIf(times -> now - times.peekLast() >= window);
        cleared.values().removeIf(at -> now - at >= window);
    }

    /** Forgets everything: failures, suspects and clearances. */
    void clear() {
        failures.clear();
        suspects.clear();
        cleared.clear();
    }

    int suspectCount() {
        return suspects.size();
    }
}
