package com.example.crawl.egress.discovery;

import com.example.crawl.egress.discovery.SlowClient.Closed;
import com.example.crawl.egress.discovery.SlowClient.Kind;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * The slow clients of {@link SlowClientBenchmark}, in a child JVM so that they share no threads
 * with the server: N connections each dripping a request head a byte a second, each reconnecting
 * as soon as the server cuts it, until stdin closes. Opens the first N one after another (so the
 * server's accept queue never overflows), prints {@code ready}, and at the end one line of
 * {@code key=value} results: cuts, cut times after the first byte (ms), cuts earlier than the
 * deadline less 100 ms or later than the deadline plus a second, connections never cut within the
 * bound, failed reconnects, and the average number of slow clients connected (connection time over
 * wall time; below N by the time each takes to reconnect).
 *
 * <p>Usage: {@code SlowClientLoad host port clients deadlineMillis boundSeconds}
 */
public final class SlowClientLoad {

    private static final long NOT_CONNECTED = Long.MIN_VALUE;

    private SlowClientLoad() {
    }

    public static void main(String[] args) throws Exception {
        InetSocketAddress server = new InetSocketAddress(args[0], Integer.parseInt(args[1]));
        int clients = Integer.parseInt(args[2]);
        Duration deadline = Duration.ofMillis(Long.parseLong(args[3]));
        Duration bound = Duration.ofSeconds(Long.parseLong(args[4]));
        ConcurrentLinkedQueue<Long> cuts = new ConcurrentLinkedQueue<>();
        LongAdder uncut = new LongAdder();
        LongAdder failedOpens = new LongAdder();
        // Connection time of the cycles that ended, and when each client's current connection opened.
        AtomicLong connectedNanos = new AtomicLong();
        AtomicLongArray openedAt = new AtomicLongArray(clients);
        long start = System.nanoTime();
        List<SlowClient> first = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            openedAt.set(i, System.nanoTime());
            first.add(SlowClient.open(server, Kind.DRIP_HEAD, ""));
        }
        System.out.println("ready");
        for (int i = 0; i < clients; i++) {
            int slot = i;
            SlowClient firstClient = first.get(i);
            Thread.ofVirtual().start(() -> {
                SlowClient client = firstClient;
                while (client != null) {
                    Closed closed = client.await(bound);
                    connectedNanos.addAndGet(System.nanoTime() - openedAt.getAndSet(slot, NOT_CONNECTED));
                    if (closed.byServer()) {
                        cuts.add(closed.after().toNanos());
                    } else {
                        uncut.increment();
                    }
                    try {
                        client.close();
                        long opening = System.nanoTime();
                        client = SlowClient.open(server, Kind.DRIP_HEAD, "");
                        openedAt.set(slot, opening);
                    } catch (IOException e) {
                        failedOpens.increment();
                        client = null;
                    }
                }
            });
        }
        // The parent closes stdin when its measurement ends.
        System.in.readAllBytes();
        long end = System.nanoTime();
        for (int i = 0; i < clients; i++) {
            long opened = openedAt.get(i);
            if (opened != NOT_CONNECTED) {
                connectedNanos.addAndGet(end - opened);
            }
        }
        double seconds = (end - start) / 1e9;
        List<Long> sorted = new ArrayList<>(cuts);
        sorted.sort(null);
        long early = sorted.stream().filter(n -> n < deadline.minusMillis(100).toNanos()).count();
        long late = sorted.stream().filter(n -> n > deadline.plusSeconds(1).toNanos()).count();
        System.out.printf("cuts=%d min_ms=%.0f p50_ms=%.0f p99_ms=%.0f max_ms=%.0f early=%d late=%d uncut=%d "
                        + "failed_opens=%d avg_connected=%.0f%n", sorted.size(), ms(sorted, 0), ms(sorted, 0.5),
                ms(sorted, 0.99), ms(sorted, 1), early, late, uncut.sum(), failedOpens.sum(),
                connectedNanos.get() / 1e9 / seconds);
        System.exit(0);
    }

    private static double ms(List<Long> sorted, double q) {
        if (sorted.isEmpty()) {
            return Double.NaN;
        }
        return sorted.get(Math.max(0, (int) Math.ceil(q * sorted.size()) - 1)) / 1e6;
    }
}
