package com.example.crawl.egress.queue;

import java.util.HashMap;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * Keys waiting for a due time, earliest first (ties in arrival order). A key is held at most
 * once: offering it again keeps the earlier of the two due times, as client-go's delaying queue.
 * Due times are {@link NanoClock} readings and are compared by subtraction, so they may wrap.
 *
 * <p>Not thread-safe: {@link WorkQueue} guards it with its lock.
 */
final class DelayHeap<K> {
    private record Entry<K>(K key, long due, long seq) { }

    private final PriorityQueue<Entry<K>> heap = new PriorityQueue<>(DelayHeap::earlierFirst);
    private final Map<K, Entry<K>> byKey = new HashMap<>();
    private long arrivals;

    /** Holds {@code key} until {@code due}, unless it is already held until then or earlier. */
    void offer(K key, long due) {
        Entry<K> held = byKey.get(key);
        if (held != null) {
            if (held.due() - due <= 0) {
                return;
            }
            heap.remove(held); // linear, but only when a wait gets shorter
        }
        Entry<K> entry = new Entry<>(key, due, arrivals++);
        heap.add(entry);
        byKey.put(key, entry);
    }

    /** Removes and returns the earliest key if it is due at {@code now}; otherwise null. */
    K pollDue(long now) {
        Entry<K> first = heap.peek();
        if (first == null || first.due() - now > 0) {
            return null;
        }
        heap.poll();
        byKey.remove(first.key());
        return first.key();
    }

    /** Nanoseconds from {@code now} until the earliest due time: 0 if overdue, MAX_VALUE if empty. */
    long nanosUntilNext(long now) {
        Entry<K> first = heap.peek();
        return first == null ? Long.MAX_VALUE : Math.max(0, first.due() - now);
    }

    void clear() {
        heap.clear();
        byKey.clear();
    }

    int size() {
        return heap.size();
    }

    private static int earlierFirst(Entry<?> a, Entry<?> b) {
        int byDue = Long.signum(a.due() - b.due());
        return byDue != 0 ? byDue : Long.compare(a.seq(), b.seq());
    }
}
