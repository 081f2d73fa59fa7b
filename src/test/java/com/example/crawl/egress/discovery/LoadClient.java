package com.example.crawl.egress.discovery;

import java.util.Map;
import java.util.HashMap;
import java.nio.file.Path;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * The benchmark's own load generator, run in a child JVM by {@link DiscoveryBenchmark}: N platform
 * threads, each with one keep-alive connection, sending requests back to back for a fixed time and
 * timing every call. wrk cannot tell an acquire's latency from a release's; this can. Prints one
 * line of {@code key=value} results on stdout.
 *
 * <p>Usage: {@code LoadClient host port token healthz|pairs connections seconds}
 */
public final class LoadClient {

    /** Latency histogram: 10 µs buckets up to 2 s, the last one catching everything slower. */
    private static final int BUCKETS = 200_000;
    private static final long BUCKET_NANOS = 10_000;

    private LoadClient() {
    }

    /** Latencies of one kind of call. Thread-safe. */
    static final class Histogram {
        private final AtomicLongArray counts = new AtomicLongArray(BUCKETS);
        private final LongAdder total = new LongAdder();

        void record(long nanos) {
            counts.incrementAndGet((int) Math.min(BUCKETS - 1, nanos / BUCKET_NANOS));
            total.increment();
        }

        long count() {
            return total.sum();
        }

        /** The latency at this quantile in milliseconds (upper edge of its bucket). */
        double quantileMillis(double q) {
            long rank = (long) Math.ceil(q * total.sum());
            long seen = 0;
            for (int i = 0; i < BUCKETS; i++) {
                seen += counts.get(i);
                if (seen >= rank && seen > 0) {
                    return (i + 1) * BUCKET_NANOS / 1e6;
                }
            }
            return Double.NaN;
        }
    }

    /**
     * Runs this client in a child JVM against {@code 127.0.0.1:port} and returns its results line
     * as key → value ({@code calls}, {@code seconds}, {@code errors}, {@code first_p50}, ...).
     */
    static Map<String, String> runInChildJvm(int port, String token, String mode, int connections, int seconds)
            throws IOException, InterruptedException {
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), LoadClient.class.getName(), "127.0.0.1", Integer.toString(port),
                token, mode, Integer.toString(connections), Integer.toString(seconds))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IllegalStateException("load client failed: " + out);
        }
        Map<String, String> results = new HashMap<>();
        for (String kv : out.strip().split(" ")) {
            results.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
        }
        return results;
    }

    public static void main(String[] args) throws Exception {
        InetSocketAddress server = new InetSocketAddress(args[0], Integer.parseInt(args[1]));
        String token = args[2];
        boolean pairs = args[3].equals("pairs");
        int connections = Integer.parseInt(args[4]);
        long seconds = Long.parseLong(args[5]);
        Histogram first = new Histogram(); // healthz, or acquire
        Histogram second = new Histogram(); // release
        LongAdder errors = new LongAdder();
        CountDownLatch ready = new CountDownLatch(connections);
        CountDownLatch go = new CountDownLatch(1);
        long[] window = new long[2]; // written before go opens, read after
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            Thread t = Thread.ofPlatform().name("load-", i).start(() -> {
                try (Connection c = new Connection(server, token)) {
                    ready.countDown();
                    go.await();
                    long end = window[1];
                    while (System.nanoTime() < end) {
                        if (pairs) {
                            c.pair(first, second, errors);
                        } else {
                            c.healthz(first, errors);
                        }
                    }
                } catch (Exception e) {
                    errors.increment();
                    ready.countDown();
                    System.err.println("load client: " + e);
                }
            });
            threads.add(t);
        }
        // The window starts once every connection is open.
        ready.await();
        window[0] = System.nanoTime();
        window[1] = window[0] + seconds * 1_000_000_000L;
        go.countDown();
        for (Thread t : threads) {
            t.join();
        }
        double elapsed = (System.nanoTime() - window[0]) / 1e9;
        System.out.printf("calls=%d seconds=%.2f errors=%d first_p50=%.2f first_p99=%.2f second_calls=%d "
                        + "second_p50=%.2f second_p99=%.2f%n", first.count(), elapsed, errors.sum(),
                first.quantileMillis(0.50), first.quantileMillis(0.99), second.count(), second.quantileMillis(0.50),
                second.quantileMillis(0.99));
    }

    /** One keep-alive connection speaking just enough HTTP/1.1 for our fixed-length answers. */
    private static final class Connection implements AutoCloseable {
        private final Socket socket;
        private final OutputStream out;
        private final InputStream in;
        private final byte[] healthz;
        private final byte[] acquire;
        private final String auth;

        Connection(InetSocketAddress server, String token) throws IOException {
            socket = new Socket();
            socket.setTcpNoDelay(true);
            socket.connect(server);
            out = new BufferedOutputStream(socket.getOutputStream());
            in = new BufferedInputStream(socket.getInputStream());
            auth = "Authorization: Bearer " + token + "\r\n";
            healthz = "GET /healthz HTTP/1.1\r\nHost: bench\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
            acquire = ("POST /v1/leases HTTP/1.1\r\nHost: bench\r\n" + auth
                    + "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}").getBytes(StandardCharsets.US_ASCII);
        }

        void healthz(Histogram h, LongAdder errors) throws IOException {
            long start = System.nanoTime();
            call(healthz, 200, errors);
            h.record(System.nanoTime() - start);
        }

        void pair(Histogram acquired, Histogram released, LongAdder errors) throws IOException {
            long start = System.nanoTime();
            String body = call(acquire, 201, errors);
            long mid = System.nanoTime();
            acquired.record(mid - start);
            if (body == null) {
                return;
            }
            int at = body.indexOf("\"leaseId\":\"") + 11;
            String id = body.substring(at, body.indexOf('"', at)); // signed ids vary in length
            byte[] release = ("DELETE /v1/leases/" + id + " HTTP/1.1\r\nHost: bench\r\n" + auth + "\r\n")
                    .getBytes(StandardCharsets.US_ASCII);
            call(release, 204, errors);
            released.record(System.nanoTime() - mid);
        }

        /** Sends a request and reads the answer; the body, or null (counted) when the status is not {@code expect}. */
        private String call(byte[] request, int expect, LongAdder errors) throws IOException {
            out.write(request);
            out.flush();
            String status = line();
            int length = 0;
            for (String h = line(); !h.isEmpty(); h = line()) {
                if (h.regionMatches(true, 0, "Content-Length:", 0, 15)) {
                    length = Integer.parseInt(h.substring(15).strip());
                }
            }
            byte[] body = in.readNBytes(length);
            if (!status.startsWith("HTTP/1.1 " + expect)) {
                errors.increment();
                return null;
            }
            return new String(body, StandardCharsets.UTF_8);
        }

        private String line() throws IOException {
            StringBuilder b = new StringBuilder(64);
            for (int c = in.read(); c != '\n'; c = in.read()) {
                if (c < 0) {
                    throw new IOException("connection closed");
                }
                if (c != '\r') {
                    b.append((char) c);
                }
            }
            return b.toString();
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
