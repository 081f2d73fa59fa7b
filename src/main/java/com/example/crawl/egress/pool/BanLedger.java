package com.example.crawl.egress.pool;

import com.example.crawl.egress.lease.BanListener;
import com.example.crawl.egress.lease.TargetTimes;
import java.time.Duration;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.ToIntFunction;

/**
 * Which targets each pool member was reported {@code banned} on, and when (the monotonic clock of
 * the lease store): what the {@code recycleAfterBans} rule counts. Fed by the lease store as its
 * {@link BanListener}; read by the pool controller with {@link #distinctTargets}.
 *
 * <p>A ban is recorded only for a proxy {@code depth} gives a depth above 0 (a member of a pool with
 * {@code recycleAfterBans}: its {@code targets}), and then {@code onBan} is told its key so that the
 * pool can be looked at again. Per proxy, one time per target: a target banned again counts once,
 * at its latest time. The empty target (a report that named none) is one target like any other.
 *
 * <p>Per proxy only the {@code depth} latest targets are kept. That loses no decision: if a member
 * has at least {@code targets} banned targets within a window, its {@code targets} latest are all
 * within it, and if it has fewer, they are all among the latest. So what the lease store keeps for
 * a new leader grows with the members and their thresholds, never with the reports.
 *
 * <p>Bounded like the lease store's cooldowns: at most {@value #PER_PROXY} targets per proxy and
 * {@value #TOTAL} in all. A new or renewed ban becomes the newest, and one beyond either bound drops
 * the oldest (of that proxy, or of all), counted in {@link #dropped}. {@link #sweep} forgets bans
 * older than the longest window any pool asks for. A member that is gone needs nothing more: its
 * name is never used again, and its bans age out.
 *
 * <p>Thread-safe, behind one lock that is held only for map updates: nothing under it blocks, and
 * {@code counted} and {@code onBan} run outside it, on the reporting thread.
 */
public final class BanLedger implements BanListener {

    /** Targets one proxy keeps at most. */
    static final int PER_PROXY = 1_000;
    /** Bans kept at most, all proxies together. */
    static final int TOTAL = 50_000;

    private final ToIntFunction<String> depth;
    private final Consumer<String> onBan;
    private final long longestWindow;
    private final ReentrantLock lock = new ReentrantLock();
    /** proxy → target → latest ban. */
    private final TargetTimes bans = new TargetTimes(PER_PROXY, TOTAL); // guarded by lock

    /**
     * @param depth         how many of this proxy's ({@code namespace/name}) latest banned targets a
     *                      decision reads (its pool's {@code recycleAfterBans.targets}), 0 when none
     *                      does: its bans are not kept; must not block
     * @param onBan         told the proxy's key after each ban kept (the controller enqueues its pool);
     *                      must not block
     * @param longestWindow the longest {@code recycleAfterBans.window} a pool may have: older bans
     *                      are swept
     */
    public BanLedger(ToIntFunction<String> depth, Consumer<String> onBan, Duration longestWindow) {
        if (longestWindow.isNegative() || longestWindow.isZero()) {
            throw new IllegalArgumentException("longestWindow must be above 0: " + longestWindow);
        }
        this.depth = depth;
        this.onBan = onBan;
        this.longestWindow = longestWindow.toNanos();
    }

    @Override
    public int banned(String proxyKey, String target, long nanoTime) {
        int kept = Math.min(depth.applyAsInt(proxyKey), PER_PROXY);
        if (kept <= 0) {
            return 0;
        }
        lock.lock();
        try {
            bans.put(proxyKey, target, nanoTime);
            bans.keepLatest(proxyKey, kept);
        } finally {
            lock.unlock();
        }
        onBan.accept(proxyKey);
        return kept;
    }

    /** Bans are kept for the longest window a pool may count them in. */
    @Override
    public Duration memory() {
        return Duration.ofNanos(longestWindow);
    }

    /**
     * Distinct targets {@code proxyKey} was banned on within {@code window} ending at {@code nowNanos}:
     * those whose latest ban is less than {@code window} before now.
     */
    public int distinctTargets(String proxyKey, Duration window, long nowNanos) {
        long span = window.toNanos();
        lock.lock();
        try {
            return bans.count(proxyKey, at -> nowNanos - at < span);
        } finally {
            lock.unlock();
        }
    }

    /** Forgets bans at least the longest window old at {@code nowNanos}: no pool counts them. */
    @Override
    public void sweep(long nowNanos) {
        lock.lock();
        try {
            bans.removeIf(at -> nowNanos - at >= longestWindow);
        } finally {
            lock.unlock();
        }
    }

    /** Bans dropped before they aged out because a bound was reached, since start. */
    public long dropped() {
        lock.lock();
        try {
            return bans.dropped();
        } finally {
            lock.unlock();
        }
    }

    /** Bans held, all proxies together. */
    public int size() {
        lock.lock();
        try {
            return bans.size();
        } finally {
            lock.unlock();
        }
    }
}
