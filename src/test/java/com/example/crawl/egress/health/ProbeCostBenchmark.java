package com.example.crawl.egress.health;

import com.example.crawl.egress.lab.Squid;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * The probe-cost benchmark of docs/benchmarks.md: the same https probe through the same local
 * Squid to a local JDK HttpsServer (EC P-256 certificate from keytool), made by
 * <ol>
 *   <li>{@link ConnectProber};
 *   <li>{@code java.net.http.HttpClient} as a user would write it: a new client per probe with the
 *       proxy and an SSLContext that trusts the certificate, so every probe opens a new tunnel;
 *   <li>the floor: a raw SSLSocket with TLS and GET straight to the server, no proxy;
 *   <li>and the http probe: {@link ConnectProber}'s absolute-URI GET through Squid.
 * </ol>
 * Prints probes/s and client CPU-seconds per 1,000 probes. The targets run in a child JVM, so the
 * process CPU time of this JVM is the client's alone (probing threads, JIT and GC together);
 * Squid's and the targets' CPU time are read from /proc beside it. Variants run interleaved, round
 * after round, after a warm-up of each.
 *
 * <p>Run: {@code java -cp ... com.example.crawl.egress.health.ProbeCostBenchmark [probes] [concurrency]
 * [rounds] [warmup] [--no-resumption]} (defaults 3000 4 3 2000); docs/benchmarks.md has the full
 * command. {@code --no-resumption} makes the target refuse TLS session resumption, so every probe
 * of every variant does a full handshake.
 */
public final class ProbeCostBenchmark {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final Set<Integer> EXPECTED = Set.of(204);
    private static final String PATH = "/status/204";

    private ProbeCostBenchmark() {
    }

    /** One way of making one probe; true if it saw the expected status. */
    @FunctionalInterface
    interface Probe {
        boolean once() throws Exception;
    }

    record Variant(String name, Probe probe) { }

    record Measurement(int probes, int failures, double seconds, double clientCpu, double squidCpu, double targetCpu) {
        double perSecond() {
            return probes / seconds;
        }

        /** CPU-seconds per 1,000 probes, which is also milliseconds per probe. */
        static double per1000(double cpuSeconds, int probes) {
            return cpuSeconds * 1000 / probes;
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 2 && args[0].equals("--serve")) {
            serve(Path.of(args[1]));
            return;
        }
        List<String> plain = new ArrayList<>(List.of(args));
        boolean noResumption = plain.remove("--no-resumption");
        int probes = plain.size() > 0 ? Integer.parseInt(plain.get(0)) : 3000;
        int concurrency = plain.size() > 1 ? Integer.parseInt(plain.get(1)) : 4;
        int rounds = plain.size() > 2 ? Integer.parseInt(plain.get(2)) : 3;
        int warmup = plain.size() > 3 ? Integer.parseInt(plain.get(3)) : 2000;

        Path dir = Files.createTempDirectory("probe-cost");
        Path store = dir.resolve("cert");
        TestCertificate cert = TestCertificate.generate(store);
        Process targets = startTargets(store.resolve("localhost.p12"), noResumption);
        try (Squid squid = Squid.start(dir.resolve("squid"));
                ConnectProber prober = new ConnectProber(cert.trustingContext())) {
            int[] ports = readPorts(targets);
            List<Variant> variants = variants(squid, cert, prober, ports[0], ports[1]);
            System.out.printf("probes %d per variant and round, concurrency %d, rounds %d, warm-up %d, resumption %s%n",
                    probes, concurrency, rounds, warmup, noResumption ? "refused by the target" : "as the JDK does it");
            for (Variant v : variants) {
                measure(v, warmup, concurrency, squid.pid(), targets.pid());
            }
            List<List<Measurement>> results = new ArrayList<>();
            variants.forEach(v -> results.add(new ArrayList<>()));
            for (int r = 1; r <= rounds; r++) {
                for (int i = 0; i < variants.size(); i++) {
                    Measurement m = measure(variants.get(i), probes, concurrency, squid.pid(), targets.pid());
                    results.get(i).add(m);
                    print("round " + r, variants.get(i).name(), m);
                }
            }
            summarize(variants, results);
        } finally {
            targets.destroy();
            targets.waitFor();
            deleteTree(dir);
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    private static List<Variant> variants(Squid squid, TestCertificate cert, ConnectProber prober, int httpsPort,
            int httpPort) throws Exception {
        URI https = URI.create("https://localhost:" + httpsPort + PATH);
        URI http = URI.create("http://localhost:" + httpPort + PATH);
        ProbeTarget tunnelled = new ProbeTarget(squid.host(), squid.port(), https, EXPECTED, TIMEOUT, false);
        ProbeTarget plain = new ProbeTarget(squid.host(), squid.port(), http, EXPECTED, TIMEOUT, false);
        InetSocketAddress proxy = new InetSocketAddress(squid.host(), squid.port());
        SSLContext forHttpClient = cert.trustingContext();
        SSLContext forFloor = cert.trustingContext();
        return List.of(
                new Variant("ConnectProber, https via Squid", () -> prober.probe(tunnelled) instanceof ProbeResult.Success),
                new Variant("HttpClient per probe, https via Squid", () -> httpClientProbe(proxy, forHttpClient, https)),
                new Variant("floor: TLS + GET direct, no proxy", () -> directProbe(forFloor, https)),
                new Variant("ConnectProber, http via Squid", () -> prober.probe(plain) instanceof ProbeResult.Success));
    }

    /** The probe a user would write with java.net.http: a fresh client each time, closed after. */
    private static boolean httpClientProbe(InetSocketAddress proxy, SSLContext tls, URI url) throws Exception {
        try (HttpClient client = HttpClient.newBuilder().proxy(ProxySelector.of(proxy)).sslContext(tls)
                .connectTimeout(TIMEOUT).build()) {
            HttpRequest request = HttpRequest.newBuilder(url).timeout(TIMEOUT).GET().build();
            return EXPECTED.contains(client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode());
        }
    }

    /** TCP, TLS with host-name verification, GET and the status line, straight to the target. */
    private static boolean directProbe(SSLContext tls, URI url) throws Exception {
        Deadline deadline = Deadline.after(TIMEOUT);
        try (Socket raw = new Socket()) {
            raw.setTcpNoDelay(true);
            raw.connect(new InetSocketAddress(url.getHost(), url.getPort()), deadline.remainingMillis());
            SSLSocket secure = (SSLSocket) tls.getSocketFactory().createSocket(raw, url.getHost(), url.getPort(), true);
            SSLParameters params = secure.getSSLParameters();
            params.setEndpointIdentificationAlgorithm("HTTPS");
            secure.setSSLParameters(params);
            raw.setSoTimeout(deadline.remainingMillis());
            secure.startHandshake();
            secure.getOutputStream().write(("GET " + url.getRawPath() + " HTTP/1.1\r\nHost: " + url.getHost() + ":"
                    + url.getPort() + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            return EXPECTED.contains(new HeadReader(secure, deadline).statusLine().code());
        }
    }

    private static Measurement measure(Variant v, int probes, int concurrency, long squidPid, long targetPid)
            throws InterruptedException {
        AtomicInteger left = new AtomicInteger(probes);
        AtomicInteger failures = new AtomicInteger();
        double squid0 = procCpu(squidPid);
        double target0 = procCpu(targetPid);
        long cpu0 = processCpuNanos();
        long t0 = System.nanoTime();
        try (ExecutorService workers = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int w = 0; w < concurrency; w++) {
                workers.submit(() -> {
                    while (left.getAndDecrement() > 0) {
                        if (!attempt(v.probe())) {
                            failures.incrementAndGet();
                        }
                    }
                });
            }
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        double client = (processCpuNanos() - cpu0) / 1e9;
        return new Measurement(probes, failures.get(), seconds, client, procCpu(squidPid) - squid0,
                procCpu(targetPid) - target0);
    }

    private static boolean attempt(Probe probe) {
        try {
            return probe.once();
        } catch (Exception e) {
            return false;
        }
    }

    private static void print(String label, String name, Measurement m) {
        System.out.printf("%-8s %-40s %7.0f probes/s  client %6.2f  squid %5.2f  target %5.2f CPU-s/1000  failures %d%n",
                label, name, m.perSecond(), Measurement.per1000(m.clientCpu(), m.probes()),
                Measurement.per1000(m.squidCpu(), m.probes()), Measurement.per1000(m.targetCpu(), m.probes()), m.failures());
    }

    private static void summarize(List<Variant> variants, List<List<Measurement>> results) {
        System.out.println();
        System.out.println("median of rounds:");
        double[] client = new double[variants.size()];
        for (int i = 0; i < variants.size(); i++) {
            List<Measurement> ms = results.get(i);
            client[i] = median(ms.stream().mapToDouble(m -> Measurement.per1000(m.clientCpu(), m.probes())).toArray());
            System.out.printf("  %-40s %7.0f probes/s  client %6.2f  squid %5.2f  target %5.2f CPU-s/1000%n",
                    variants.get(i).name(), median(ms.stream().mapToDouble(Measurement::perSecond).toArray()), client[i],
                    median(ms.stream().mapToDouble(m -> Measurement.per1000(m.squidCpu(), m.probes())).toArray()),
                    median(ms.stream().mapToDouble(m -> Measurement.per1000(m.targetCpu(), m.probes())).toArray()));
        }
        System.out.printf("HttpClient / ConnectProber (client CPU): %.2f%n", client[1] / client[0]);
        System.out.printf("ConnectProber / floor (client CPU):      %.2f%n", client[0] / client[2]);
    }

    private static double median(double[] xs) {
        double[] sorted = xs.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /** User plus system CPU seconds of another process, from /proc (clock ticks of 1/100 s). */
    private static double procCpu(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / 100.0; // utime, stime
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    private static Process startTargets(Path store, boolean noResumption) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        if (noResumption) {
            command.add("-Djdk.tls.server.disableExtensions=pre_shared_key");
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), ProbeCostBenchmark.class.getName(),
                "--serve", store.toString()));
        return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    private static int[] readPorts(Process targets) throws IOException {
        BufferedReader out = new BufferedReader(new InputStreamReader(targets.getInputStream(), StandardCharsets.US_ASCII));
        String line = out.readLine();
        if (line == null || !line.startsWith("ports ")) {
            throw new IllegalStateException("target JVM did not start: " + line);
        }
        String[] parts = line.split(" ");
        return new int[] {Integer.parseInt(parts[1]), Integer.parseInt(parts[2])};
    }

    /** The child JVM: serves the targets until its stdin closes or it is killed. */
    private static void serve(Path store) throws Exception {
        TestCertificate cert = TestCertificate.load(store);
        try (TargetServer https = TargetServer.https(cert.serverContext()); TargetServer http = TargetServer.http()) {
            System.out.println("ports " + https.port() + " " + http.port());
            System.out.flush();
            System.in.transferTo(OutputStream.nullOutputStream());
        }
    }
}
