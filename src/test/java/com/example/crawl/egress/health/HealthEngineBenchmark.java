package com.example.crawl.egress.health;

import static com.example.crawl.egress.health.EngineRig.managedAt;

import com.example.crawl.egress.api.HealthCheck;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.config.OperatorConfig;
import io.opentelemetry.api.trace.TracerProvider;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Engine scale: N Proxies at {@code periodSeconds: 1} with an http probe URL, each on its own
 * 127.x address, all served by one {@link LoopbackProxies} process that answers 204. The engine
 * runs as {@code Main} builds it (real {@link ConnectProber}, default concurrency) for a warm-up
 * and then a measured window. Prints achieved versus scheduled probes, the lateness of probe
 * starts, the operator's CPU and heap, and the proxy process's CPU beside them.
 *
 * <p>Usage: {@code HealthEngineBenchmark [proxies=2000] [seconds=60] [warmupSeconds=10]}
 */
public final class HealthEngineBenchmark {

    private static final int MAX_SAMPLES = 4_000_000;

    public static void main(String[] args) throws Exception {
        int proxies = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 60;
        int warmup = args.length > 2 ? Integer.parseInt(args[2]) : 10;

        Process server = startProxyProcess();
        int port = awaitReady(server);
        List<Proxy> fleet = fleet(proxies, port);

        long[] lateness = new long[MAX_SAMPLES];
        AtomicInteger samples = new AtomicInteger();
        long[] durations = new long[MAX_SAMPLES];
        AtomicInteger durationSamples = new AtomicInteger();
        AtomicLong recording = new AtomicLong(); // 0 = warm-up, 1 = measuring
        LongAdder finished = new LongAdder();
        Map<String, LongAdder> failures = new ConcurrentHashMap<>();
        ProbeRecorder recorder = new ProbeRecorder() {
            @Override
            public void started(Duration late) {
                if (recording.get() == 1) {
                    int i = samples.getAndIncrement();
                    if (i < MAX_SAMPLES) {
                        lateness[i] = late.toNanos();
                    }
                }
            }

            @Override
            public void finished(ProxyKey key, ProbeResult result) {
                finished.increment();
                if (recording.get() == 1) {
                    int i = durationSamples.getAndIncrement();
                    if (i < MAX_SAMPLES) {
                        durations[i] = result.elapsed().toNanos();
                    }
                }
                if (result instanceof ProbeResult.Failure f) {
                    failures.computeIfAbsent(f.reason().name(), r -> new LongAdder()).increment();
                }
            }

            @Override
            public void forgotten(ProxyKey key) { }
        };
        LongAdder reports = new LongAdder();
        OperatorConfig.Probes config = new OperatorConfig.Probes(URI.create("http://probe.invalid/generate_204"),
                1000, Duration.ofSeconds(60), false); // the flags' defaults
        try (ConnectProber prober = new ConnectProber();
                HealthEngine engine = new HealthEngine(() -> fleet, p -> Optional.empty(), prober, EgressEcho.NONE, k -> reports.increment(),
                        config, recorder, TracerProvider.noop().get("benchmark"))) {
            engine.start();
            Thread.sleep(Duration.ofSeconds(warmup)); // the warm-up is part of the measurement design, not a wait
            long[] machine0 = machineTicks();
            long cpu0 = processCpuNanos();
            long serverCpu0 = cpuNanos(server);
            long finished0 = finished.sum();
            long t0 = System.nanoTime();
            recording.set(1);
            long peakHeap = 0;
            for (int s = 0; s < seconds; s++) {
                Thread.sleep(Duration.ofSeconds(1));
                peakHeap = Math.max(peakHeap, heapUsed());
            }
            recording.set(0);
            long wall = System.nanoTime() - t0;
            long cpu = processCpuNanos() - cpu0;
            long[] machine1 = machineTicks();
            long jiffies = Math.max(1, machine1[1] - machine0[1]);
            double[] machine = {(double) (machine1[0] - machine0[0]) / jiffies, (double) (machine1[2] - machine0[2]) / jiffies};
            long serverCpu = cpuNanos(server) - serverCpu0;
            int n = Math.min(samples.get(), MAX_SAMPLES);
            long[] late = Arrays.copyOf(lateness, n);
            Arrays.sort(late);
            long[] took = Arrays.copyOf(durations, Math.min(durationSamples.get(), MAX_SAMPLES));
            Arrays.sort(took);
            double scheduled = (double) proxies * wall / 1e9; // period 1 s
            System.gc();
            report(proxies, wall, n, scheduled, late, took, finished.sum() - finished0, failures, cpu, serverCpu, peakHeap,
                    heapUsed(), reports.sum(), machine);
        } finally {
            server.destroy();
        }
    }

    private static void report(int proxies, long wall, int started, double scheduled, long[] late, long[] took,
            long finished,
            Map<String, LongAdder> failures, long cpu, long serverCpu, long peakHeap, long heapAfterGc, long reports,
            double[] machine) {
        double secs = wall / 1e9;
        System.out.printf("proxies                         %d (period 1 s, http probe)%n", proxies);
        System.out.printf("window                          %.1f s%n", secs);
        System.out.printf("probes started / scheduled      %d / %.0f = %.2f %%%n", started, scheduled, 100.0 * started / scheduled);
        System.out.printf("probes finished                 %d (%.0f /s)%n", finished, finished / secs);
        System.out.printf("failures                        %s%n", failures);
        System.out.printf("lateness p50 / p99 / p99.9 / max %.1f / %.1f / %.1f / %.1f ms%n",
                pct(late, 50), pct(late, 99), pct(late, 99.9), late.length == 0 ? 0 : late[late.length - 1] / 1e6);
        System.out.printf("probe duration p50 / p99 / max   %.1f / %.1f / %.1f ms%n",
                pct(took, 50), pct(took, 99), took.length == 0 ? 0 : took[took.length - 1] / 1e6);
        System.out.printf("operator CPU                    %.2f core-s/s (%.0f %% of 2 cores), %.1f µs per probe%n",
                cpu / 1e9 / secs, 50.0 * cpu / 1e9 / secs, cpu / 1e3 / Math.max(1, finished));
        System.out.printf("proxy process CPU               %.2f core-s/s%n", serverCpu / 1e9 / secs);
        System.out.printf("whole machine busy / stolen     %.0f %% / %.0f %% (all processes and the kernel, /proc/stat)%n",
                100 * machine[0], 100 * machine[1]);
        System.out.printf("operator heap peak / after GC   %.0f / %.0f MiB%n", peakHeap / 1048576.0, heapAfterGc / 1048576.0);
        System.out.printf("verdicts reported               %d%n", reports);
    }

    static double pct(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int i = (int) Math.min(sorted.length - 1, Math.ceil(p / 100 * sorted.length) - 1);
        return sorted[Math.max(0, i)] / 1e6;
    }

    /** {@code count} Proxies on distinct 127.x.y.z addresses, all at {@code port}. */
    static List<Proxy> fleet(int count, int port) {
        HealthCheck check = new HealthCheck("http://probe.invalid/generate_204", null, 1, 1, 1, 3, null);
        List<Proxy> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String ip = "127." + (1 + i / 62_500) + "." + (1 + i / 250 % 250) + "." + (1 + i % 250);
            out.add(managedAt("p" + i, ip, port, check));
        }
        return List.copyOf(out);
    }

    static Process startProxyProcess() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        return new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                LoopbackProxies.class.getName(), "0").redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    static int awaitReady(Process p) throws Exception {
        BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.US_ASCII));
        String line = r.readLine();
        if (line == null || !line.startsWith("ready ")) {
            throw new IllegalStateException("proxy process did not start: " + line);
        }
        return Integer.parseInt(line.substring(6).trim());
    }

    static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    static long cpuNanos(Process p) {
        return p.info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
    }

    /** Busy and total jiffies of all CPUs since boot, from the first line of /proc/stat; zeros elsewhere. */
    static long[] machineTicks() {
        try {
            String[] f = java.nio.file.Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long total = 0;
            for (int i = 1; i < f.length; i++) {
                total += Long.parseLong(f[i]);
            }
            long idle = Long.parseLong(f[4]) + Long.parseLong(f[5]); // idle + iowait
            long steal = f.length > 8 ? Long.parseLong(f[8]) : 0; // time the hypervisor gave to others
            return new long[] {total - idle - steal, total, steal};
        } catch (java.io.IOException | RuntimeException e) {
            return new long[] {0, 0, 0};
        }
    }

    private static long heapUsed() {
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
