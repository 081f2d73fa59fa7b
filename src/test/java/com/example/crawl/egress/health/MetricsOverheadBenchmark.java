package com.example.crawl.egress.health;

import com.example.crawl.egress.api.Phase;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyStatus;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.lease.LeaseStore;
import com.example.crawl.egress.metrics.Metrics;
import com.example.crawl.egress.queue.QueueStats;
import io.opentelemetry.api.trace.TracerProvider;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;

/**
 * What metrics cost. Part 0: the recorder alone, {@code started} and {@code finished} for N
 * Proxies in a tight loop on one thread, in thread CPU time per probe: a bound on what metrics can
 * add to a probe that no noise on the box blurs. Part 1: {@link HealthEngineBenchmark}'s set-up (N Proxies at a 1 s period,
 * one {@link LoopbackProxies} child process answering 204, the real {@link ConnectProber}) run with
 * the engine's recorder off ({@link ProbeRecorder#NONE}) and on ({@link Metrics#probes()} on a
 * real registry), alternating within each round; the figure is operator CPU per finished probe,
 * on ÷ off. Scraping is measured apart, in part 2: one registry holding the series of N and of M
 * Proxies (a probe recorded for each, a tenth failed, every scrape-time gauge), scraped over
 * loopback through the real exporter in each format: time, CPU and bytes per scrape.
 *
 * <p>The box is shared and noisy, so the windows are short and many, alternating off and on (and
 * the order within a round), and the figure is the pooled one: all CPU over all probes, on ÷ off.
 *
 * <p>Usage: {@code MetricsOverheadBenchmark [proxies=2000] [seconds=10] [warmupSeconds=3]
 * [rounds=10] [scrapeProxies=10000] [scrapes=20]}
 */
public final class MetricsOverheadBenchmark {

    public static void main(String[] args) throws Exception {
        int proxies = arg(args, 0, 2000);
        int seconds = arg(args, 1, 10);
        int warmup = arg(args, 2, 3);
        int rounds = arg(args, 3, 10);
        int scrapeProxies = arg(args, 4, 10_000);
        int scrapes = arg(args, 5, 20);
        System.out.printf("machine: %d CPUs, %s, JDK %s%n", Runtime.getRuntime().availableProcessors(), cpuModel(),
                System.getProperty("java.runtime.version"));
        double recorderMicros = recorderCost(proxies);
        overhead(proxies, seconds, warmup, rounds, recorderMicros);
        scrapeCost(proxies, scrapes);
        scrapeCost(scrapeProxies, scrapes);
    }

    // --- part 0: the recorder alone ---

    /** Thread CPU µs per probe that {@link Metrics#probes()} adds: one {@code started}, one {@code finished}. */
    private static double recorderCost(int proxies) {
        ProbeRecorder recorder = new Metrics(new PrometheusRegistry()).probes();
        List<ProxyKey> keys = new ArrayList<>(proxies);
        for (int i = 0; i < proxies; i++) {
            keys.add(new ProxyKey("crawl", "p" + i));
        }
        ProbeResult ok = new ProbeResult.Success(Duration.ofMillis(3), 204);
        ProbeResult failed = new ProbeResult.Failure(FailureReason.ConnectRefused, "refused", Duration.ofMillis(1));
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        double micros = 0;
        for (int pass = 0; pass < 6; pass++) { // the first passes warm the JIT up; the last one counts
            int calls = 2_000_000;
            long cpu0 = threads.getCurrentThreadCpuTime();
            for (int i = 0; i < calls; i++) {
                recorder.started(Duration.ofNanos(i & 1023));
                recorder.finished(keys.get(i % proxies), i % 10 == 0 ? failed : ok);
            }
            micros = (threads.getCurrentThreadCpuTime() - cpu0) / 1e3 / calls;
        }
        System.out.printf("recorder alone: %.3f µs thread CPU per probe (started + finished, %d Proxies)%n", micros,
                proxies);
        return micros;
    }

    // --- part 1: CPU per probe, metrics off and on ---

    private record Window(long probes, long cpuNanos, long wallNanos) {
        double cpuPerProbeMicros() {
            return cpuNanos / 1e3 / Math.max(1, probes);
        }
    }

    private static void overhead(int proxies, int seconds, int warmup, int rounds, double recorderMicros)
            throws Exception {
        List<Double> offCosts = new ArrayList<>();
        long[] pooled = new long[4]; // off CPU, off probes, on CPU, on probes
        Process server = HealthEngineBenchmark.startProxyProcess();
        int port = HealthEngineBenchmark.awaitReady(server);
        List<Proxy> fleet = HealthEngineBenchmark.fleet(proxies, port);
        Metrics metrics = new Metrics(new PrometheusRegistry());
        OperatorConfig.Probes config = new OperatorConfig.Probes(URI.create("http://probe.invalid/generate_204"),
                1000, Duration.ofSeconds(60), false);
        List<Double> ratios = new ArrayList<>();
        try (ConnectProber prober = new ConnectProber()) {
            for (int r = 1; r <= rounds; r++) {
                boolean onFirst = r % 2 == 0; // alternate the order so that drift on the box cancels out
                Window first = run(fleet, prober, config, onFirst ? metrics.probes() : ProbeRecorder.NONE, seconds,
                        warmup);
                Window second = run(fleet, prober, config, onFirst ? ProbeRecorder.NONE : metrics.probes(), seconds,
                        warmup);
                Window on = onFirst ? first : second;
                Window off = onFirst ? second : first;
                double ratio = on.cpuPerProbeMicros() / off.cpuPerProbeMicros();
                ratios.add(ratio);
                offCosts.add(off.cpuPerProbeMicros());
                pooled[0] += off.cpuNanos();
                pooled[1] += off.probes();
                pooled[2] += on.cpuNanos();
                pooled[3] += on.probes();
                System.out.printf("round %d: off %d probes (%.0f /s), %.1f µs CPU per probe | on %d probes (%.0f /s), "
                        + "%.1f µs CPU per probe | on/off %.3f%n", r, off.probes(),
                        off.probes() / (off.wallNanos() / 1e9), off.cpuPerProbeMicros(), on.probes(),
                        on.probes() / (on.wallNanos() / 1e9), on.cpuPerProbeMicros(), ratio);
            }
        } finally {
            server.destroy();
        }
        double[] sorted = ratios.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        double offPooled = pooled[0] / 1e3 / pooled[1];
        double onPooled = pooled[2] / 1e3 / pooled[3];
        System.out.printf("pooled over %d rounds: off %.1f µs, on %.1f µs CPU per probe; on/off %.3f (target <= 1.05)%n",
                rounds, offPooled, onPooled, onPooled / offPooled);
        System.out.printf("per-round on/off: median %.3f, min %.3f, max %.3f%n",
                sorted[sorted.length / 2], sorted[0], sorted[sorted.length - 1]);
        double offMedian = offCosts.stream().mapToDouble(Double::doubleValue).sorted().toArray()[offCosts.size() / 2];
        System.out.printf("bound from the recorder alone: (%.1f + %.3f) / %.1f = %.4f%n", offMedian, recorderMicros,
                offMedian, (offMedian + recorderMicros) / offMedian);
    }

    /** One engine, as Main builds it, with {@code recorder}; counts finished probes in the measured window. */
    private static Window run(List<Proxy> fleet, ConnectProber prober, OperatorConfig.Probes config,
            ProbeRecorder recorder, int seconds, int warmup) throws Exception {
        LongAdder finished = new LongAdder();
        ProbeRecorder counting = new ProbeRecorder() {
            @Override
            public void started(Duration lateness) {
                recorder.started(lateness);
            }

            @Override
            public void finished(ProxyKey key, ProbeResult result) {
                finished.increment();
                recorder.finished(key, result);
            }

            @Override
            public void forgotten(ProxyKey key) {
                recorder.forgotten(key);
            }
        };
        try (HealthEngine engine = new HealthEngine(() -> fleet, p -> Optional.empty(), prober, EgressEcho.NONE, k -> { }, config,
                counting, TracerProvider.noop().get("benchmark"))) {
            engine.start();
            Thread.sleep(Duration.ofSeconds(warmup)); // part of the measurement design, not a wait for a condition
            long cpu0 = HealthEngineBenchmark.processCpuNanos();
            long probes0 = finished.sum();
            long t0 = System.nanoTime();
            Thread.sleep(Duration.ofSeconds(seconds));
            return new Window(finished.sum() - probes0, HealthEngineBenchmark.processCpuNanos() - cpu0,
                    System.nanoTime() - t0);
        }
    }

    // --- part 2: one scrape of many Proxies' series ---

    private record Scrape(long nanos, long bytes) { }

    private static void scrapeCost(int proxies, int scrapes) throws Exception {
        Metrics metrics = new Metrics(new PrometheusRegistry());
        List<Proxy> fleet = new ArrayList<>(proxies);
        for (int i = 0; i < proxies; i++) {
            ProxyKey key = new ProxyKey("team-" + i % 20, "proxy-" + i);
            Duration took = Duration.ofMillis(20 + i % 200);
            metrics.probes().finished(key, i % 10 == 0
                    ? new ProbeResult.Failure(FailureReason.ConnectTimeout, "no answer", took)
                    : new ProbeResult.Success(took, 204));
            Proxy p = EngineRig.managedAt(key.name(), "10.0.0.1", 3128, null);
            p.setStatus(ProxyStatus.EMPTY.withPhase(i % 10 == 0 ? Phase.Unhealthy : Phase.Ready));
            fleet.add(p);
        }
        metrics.readAtScrape(new Metrics.Sources(() -> fleet, () -> new LeaseStore.Counts(0, 0, 0, Map.of(), 0), () -> true,
                "egress-proxies-operator", List.of(Metrics.Controller.proxies(
                        () -> new QueueStats(0, 0, Duration.ZERO, Duration.ZERO), 3))));
        System.out.printf("scrape of %,d Proxies' series (%d scrapes per format after 5 warm-up scrapes)%n",
                proxies, scrapes);
        try (HTTPServer exporter = metrics.serve(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            for (String[] format : new String[][] {{"text 0.0.4", "text/plain; version=0.0.4", "false"},
                    {"text 0.0.4, gzip", "text/plain; version=0.0.4", "true"},
                    {"OpenMetrics 1.0", "application/openmetrics-text; version=1.0.0", "false"},
                    {"protobuf", "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; "
                            + "encoding=delimited", "false"}}) {
                boolean gzip = Boolean.parseBoolean(format[2]);
                for (int i = 0; i < 5; i++) {
                    scrape(exporter.getPort(), format[1], gzip);
                }
                long cpu0 = HealthEngineBenchmark.processCpuNanos();
                long[] nanos = new long[scrapes];
                Scrape last = null;
                for (int i = 0; i < scrapes; i++) {
                    last = scrape(exporter.getPort(), format[1], gzip);
                    nanos[i] = last.nanos();
                }
                long cpu = HealthEngineBenchmark.processCpuNanos() - cpu0;
                Arrays.sort(nanos);
                System.out.printf("  %-17s %,11d bytes on the wire; time p50 %.0f ms, max %.0f ms; "
                        + "process CPU %.0f ms per scrape%n", format[0], last.bytes(), nanos[scrapes / 2] / 1e6,
                        nanos[scrapes - 1] / 1e6, cpu / 1e6 / scrapes);
            }
        }
    }

    /** One GET /metrics over a raw socket (no client library's cost): time to the last byte, bytes read. */
    private static Scrape scrape(int port, String accept, boolean gzip) throws IOException {
        long t0 = System.nanoTime();
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            OutputStream out = s.getOutputStream();
            out.write(("GET /metrics HTTP/1.1\r\nHost: localhost\r\nAccept: " + accept + "\r\n"
                    + (gzip ? "Accept-Encoding: gzip\r\n" : "") + "Connection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            byte[] buf = new byte[64 * 1024];
            long bytes = 0;
            for (int n = in.read(buf); n >= 0; n = in.read(buf)) {
                bytes += n;
            }
            return new Scrape(System.nanoTime() - t0, bytes);
        }
    }

    private static int arg(String[] args, int i, int fallback) {
        return args.length > i ? Integer.parseInt(args[i]) : fallback;
    }

    private static String cpuModel() {
        try {
            return java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/cpuinfo")).stream()
                    .filter(l -> l.startsWith("model name")).findFirst().map(l -> l.substring(l.indexOf(':') + 2))
                    .orElse("unknown CPU");
        } catch (IOException e) {
            return "unknown CPU";
        }
    }
}
