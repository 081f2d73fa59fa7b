package com.example.crawl.egress.discovery;

import java.util.Arrays;
import java.util.Map;
import java.util.HashMap;
import java.util.Optional;
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
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * The benchmarks' own load generator, run in a child JVM: N platform threads, each with one
 * keep-alive connection, timing every call, for a fixed time. wrk cannot tell an acquire's latency
 * from a release's; this can. Prints one line of {@code key=value} results on stdout.
 * <ul>
 * <li>{@code healthz}, {@code pairs}: closed loop, requests (or acquire+release pairs) back to back
 *     ({@link DiscoveryBenchmark});
 * <li>{@code sites}: as {@code pairs}, each acquire for a random one of {@code sites} targets
 *     ({@link #target}), its body built by {@link #siteAsk} (the site-aware leasing benchmark);
 * <li>{@code steady}: open loop at fixed rates. The N connections share {@code pairsPerSecond}
 *     pairs, each on its own schedule; beside them one connection per {@code banned} report a
 *     second (rounded up) acquires a lease for a random one of {@code sites} targets, reports it
 *     banned and releases it. A call that is late starts at once: the schedule is kept on average,
 *     and the achieved counts are printed.
 * </ul>
 * With several ports (comma-separated) connection i goes to port i mod their number, as a Service
 * spreads clients over replicas; with several tokens (comma-separated) connection i sends token i
 * mod their number, as many clients would.
 * <ul>
 * <li>{@code wrong}: open loop, the N connections share {@code perSecond} {@code GET /v1/proxies}
 *     with the token as given, each expected to be 401 (a client guessing tokens).
 * </ul>
 *
 * <p>Usage: {@code LoadClient host port[,port...] token healthz|pairs connections seconds}, or
 * {@code LoadClient host port[,port...] token sites connections seconds sites}, or
 * {@code LoadClient host port[,port...] token steady connections seconds pairsPerSecond
 * bansPerSecond sites}, or {@code LoadClient host port token wrong connections seconds perSecond}
 */
public final class LoadClient {

    /**
     * Latency histogram: 10 µs buckets up to 10 s (past a report's 5 s deadline), the last one
     * catching everything slower.
     */
    private static final int BUCKETS = 1_000_000;
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
     * Runs this client in a child JVM against {@code 127.0.0.1:port}, closed loop, and returns its
     * results line as key → value ({@code calls}, {@code seconds}, {@code errors}, {@code first_p50}, ...).
     */
    public static Map<String, String> runInChildJvm(int port, String token, String mode, int connections, int seconds)
            throws IOException, InterruptedException {
        return run(List.of(Integer.toString(port), token, mode, Integer.toString(connections),
                Integer.toString(seconds)));
    }

    /**
     * As {@link #runInChildJvm} in {@code sites} mode: every acquire names a random one of
     * {@code sites} targets.
     */
    public static Map<String, String> runSitesInChildJvm(int port, String token, int connections, int seconds,
            int sites) throws IOException, InterruptedException {
        return run(List.of(Integer.toString(port), token, "sites", Integer.toString(connections),
                Integer.toString(seconds), Integer.toString(sites)));
    }

    /**
     * Runs this client in a child JVM in {@code steady} mode against {@code 127.0.0.1} on
     * {@code ports}; its results line as key → value: those of {@link #runInChildJvm}, and
     * {@code report_calls}, {@code report_p50}, {@code report_p99}, {@code ban_errors} and
     * {@code start_ms} (the window's start, epoch milliseconds).
     */
    public static Map<String, String> runSteadyInChildJvm(List<Integer> ports, String token, int connections,
            int seconds, double pairsPerSecond, double bansPerSecond, int sites)
            throws IOException, InterruptedException {
        return run(List.of(String.join(",", ports.stream().map(String::valueOf).toList()), token, "steady",
                Integer.toString(connections), Integer.toString(seconds), Double.toString(pairsPerSecond),
                Double.toString(bansPerSecond), Integer.toString(sites)));
    }

    /**
     * Runs this client in a child JVM in {@code wrong} mode: {@code perSecond} lists a second with
     * {@code token}, which the server must refuse; {@code first_*} are the 401s' latencies.
     */
    public static Process startWrongInChildJvm(int port, String token, int connections, int seconds, double perSecond)
            throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-cp", System.getProperty("java.class.path"), LoadClient.class.getName(), "127.0.0.1",
                Integer.toString(port), token, "wrong", Integer.toString(connections), Integer.toString(seconds),
                Double.toString(perSecond)));
        return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    private static Map<String, String> run(List<String> args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-cp", System.getProperty("java.class.path"), LoadClient.class.getName(), "127.0.0.1"));
        command.addAll(args);
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
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

    /** The rates of {@code steady} mode. */
    private record Rates(double pairsPerSecond, double bansPerSecond, int sites) {
        int banConnections() {
            return (int) Math.ceil(bansPerSecond);
        }
    }

    public static void main(String[] args) throws Exception {
        List<InetSocketAddress> servers = Arrays.stream(args[1].split(","))
                .map(port -> new InetSocketAddress(args[0], Integer.parseInt(port))).toList();
        String[] tokens = args[2].split(",");
        String mode = args[3];
        int connections = Integer.parseInt(args[4]);
        long seconds = Long.parseLong(args[5]);
        Optional<Rates> rates = mode.equals("steady") ? Optional.of(new Rates(Double.parseDouble(args[6]),
                Double.parseDouble(args[7]), Integer.parseInt(args[8]))) : Optional.empty();
        int banConnections = rates.map(Rates::banConnections).orElse(0);
        int sites = mode.equals("sites") ? Integer.parseInt(args[6]) : 0;
        double wrongPerSecond = mode.equals("wrong") ? Double.parseDouble(args[6]) : 0;
        Histogram first = new Histogram(); // healthz, or acquire
        Histogram second = new Histogram(); // release
        Histogram reported = new Histogram(); // steady: the banned reports
        LongAdder errors = new LongAdder();
        LongAdder banErrors = new LongAdder();
        CountDownLatch ready = new CountDownLatch(connections + banConnections);
        CountDownLatch go = new CountDownLatch(1);
        long[] window = new long[2]; // written before go opens, read after
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < connections + banConnections; i++) {
            int index = i;
            InetSocketAddress server = servers.get(i % servers.size());
            Thread t = Thread.ofPlatform().name("load-", i).start(() -> {
                try (Connection c = new Connection(server, tokens[index % tokens.length])) {
                    ready.countDown();
                    go.await();
                    long end = window[1];
                    if (mode.equals("wrong")) {
                        paced(window[0], end, index, connections, wrongPerSecond, () -> c.refused(first, errors));
                    } else if (rates.isEmpty()) {
                        while (System.nanoTime() < end) {
                            if (mode.equals("pairs")) {
                                c.pair(first, second, errors);
                            } else if (mode.equals("sites")) {
                                c.pair(c.post("/v1/leases", siteAsk(index, target(sites))), first, second, errors);
                            } else {
                                c.healthz(first, errors);
                            }
                        }
                    } else if (index < connections) {
                        paced(window[0], end, index, connections, rates.get().pairsPerSecond(),
                                () -> c.pair(first, second, errors));
                    } else {
                        paced(window[0], end, index - connections, banConnections, rates.get().bansPerSecond(),
                                () -> c.ban(target(rates.get().sites()), reported, banErrors));
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
        long startMillis = System.currentTimeMillis();
        window[0] = System.nanoTime();
        window[1] = window[0] + seconds * 1_000_000_000L;
        go.countDown();
        for (Thread t : threads) {
            t.join();
        }
        double elapsed = (System.nanoTime() - window[0]) / 1e9;
        System.out.printf("calls=%d seconds=%.2f errors=%d first_p50=%.2f first_p99=%.2f second_calls=%d "
                        + "second_p50=%.2f second_p99=%.2f report_calls=%d report_p50=%.2f report_p99=%.2f "
                        + "ban_errors=%d start_ms=%d%n", first.count(), elapsed, errors.sum(),
                first.quantileMillis(0.50), first.quantileMillis(0.99), second.count(), second.quantileMillis(0.50),
                second.quantileMillis(0.99), reported.count(), reported.quantileMillis(0.50),
                reported.quantileMillis(0.99), banErrors.sum(), startMillis);
    }

    /** One call of a paced connection. */
    private interface Call {
        void run() throws IOException;
    }

    /**
     * Runs {@code call} on slot {@code index} of {@code of} connections sharing {@code perSecond}:
     * every {@code of / perSecond} seconds, offset by {@code index / perSecond}, until {@code end}.
     */
    private static void paced(long start, long end, int index, int of, double perSecond, Call call) throws IOException {
        long step = (long) (1e9 / perSecond);
        for (long next = start + index * step; next < end; next += of * step) {
            for (long wait = next - System.nanoTime(); wait > 0; wait = next - System.nanoTime()) {
                LockSupport.parkNanos(wait);
            }
            call.run();
        }
    }

    /** A random one of {@code sites} targets: {@code site-<n>.example}. */
    public static String target(int sites) {
        return "site-" + ThreadLocalRandom.current().nextInt(sites) + ".example";
    }

    /**
     * The body of a {@code sites} acquire on connection {@code connection}: its target, in a flex
     * sticky session of its own ({@code c-<connection>}), so that every acquire looks its
     * session's proxy up first and most stay on it.
     */
    static String siteAsk(int connection, String target) {
        return "{\"target\":\"" + target + "\",\"session\":\"c-" + connection + "\"}";
    }

    /** One keep-alive connection speaking just enough HTTP/1.1 for our fixed-length answers. */
    private static final class Connection implements AutoCloseable {
        private final Socket socket;
        private final OutputStream out;
        private final InputStream in;
        private final byte[] healthz;
        private final byte[] acquire;
        private final byte[] list;
        private final String auth;

        Connection(InetSocketAddress server, String token) throws IOException {
            socket = new Socket();
            socket.setTcpNoDelay(true);
            socket.connect(server);
            out = new BufferedOutputStream(socket.getOutputStream());
            in = new BufferedInputStream(socket.getInputStream());
            auth = "Authorization: Bearer " + token + "\r\n";
            healthz = "GET /healthz HTTP/1.1\r\nHost: bench\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
            acquire = post("/v1/leases", "{}");
            list = ("GET /v1/proxies HTTP/1.1\r\nHost: bench\r\n" + auth + "\r\n").getBytes(StandardCharsets.US_ASCII);
        }

        void healthz(Histogram h, LongAdder errors) throws IOException {
            long start = System.nanoTime();
            call(healthz, 200, errors);
            h.record(System.nanoTime() - start);
        }

        /** A list with a token that is not one: 401 expected. */
        void refused(Histogram h, LongAdder errors) throws IOException {
            long start = System.nanoTime();
            call(list, 401, errors);
            h.record(System.nanoTime() - start);
        }

        void pair(Histogram acquired, Histogram released, LongAdder errors) throws IOException {
            pair(acquire, acquired, released, errors);
        }

        /** Acquires with {@code request}, then releases what it got; each call timed. */
        void pair(byte[] request, Histogram acquired, Histogram released, LongAdder errors) throws IOException {
            long start = System.nanoTime();
            String body = call(request, 201, errors);
            long mid = System.nanoTime();
            acquired.record(mid - start);
            if (body == null) {
                return;
            }
            call(release(leaseId(body)), 204, errors);
            released.record(System.nanoTime() - mid);
        }

        /** A lease for {@code target}, reported {@code banned} (that call timed), then released. */
        void ban(String target, Histogram reported, LongAdder errors) throws IOException {
            String body = call(post("/v1/leases", "{\"target\":\"" + target + "\"}"), 201, errors);
            if (body == null) {
                return;
            }
            String id = leaseId(body);
            long start = System.nanoTime();
            String answer = call(post("/v1/leases/" + id + "/report", "{\"result\":\"banned\"}"), 204, errors);
            if (answer != null) {
                reported.record(System.nanoTime() - start);
            }
            call(release(id), 204, errors);
        }

        private static String leaseId(String body) {
            int at = body.indexOf("\"leaseId\":\"") + 11;
            return body.substring(at, body.indexOf('"', at)); // signed ids vary in length
        }

        private byte[] post(String path, String json) {
            return ("POST " + path + " HTTP/1.1\r\nHost: bench\r\n" + auth + "Content-Type: application/json\r\n"
                    + "Content-Length: " + json.length() + "\r\n\r\n" + json).getBytes(StandardCharsets.US_ASCII);
        }

        private byte[] release(String id) {
            return ("DELETE /v1/leases/" + id + " HTTP/1.1\r\nHost: bench\r\n" + auth + "\r\n")
                    .getBytes(StandardCharsets.US_ASCII);
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
