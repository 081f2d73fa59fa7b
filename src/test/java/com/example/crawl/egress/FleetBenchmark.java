package com.example.crawl.egress;

import com.example.crawl.egress.api.KubernetesSpec;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyPool;
import com.example.crawl.egress.api.ProxyPoolSpec;
import com.example.crawl.egress.api.ProxyPoolStatus;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.ProxyTemplate;
import com.example.crawl.egress.discovery.LoadClient;
import com.example.crawl.egress.health.LoopbackProxies;
import com.example.crawl.egress.metrics.Exposition;
import com.example.crawl.egress.proxy.MockApiServer;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

/**
 * The whole operator at fleet scale (docs/benchmarks.md, "The whole operator: 1,000 to 50,000
 * Proxies"). Four processes beside this one: the mock API server ({@link MockApiServer}), the
 * operator ({@link FleetOperator}: {@code Main}'s composition with a loopback provider, in a JVM
 * sized as the Deployment sizes it), one {@link LoopbackProxies} process serving every proxy, and
 * the discovery load ({@link LoadClient}). It creates the fleet (80 % plain Proxies, 20 % in two
 * ProxyPools), waits until discovery lends all of it, and then measures, in order: a steady window
 * at 500 lease pairs/s, the heap after a full GC, discovery's closed-loop capacity, one roll of the
 * pooled share, and a restart.
 *
 * <p>Usage: {@code FleetBenchmark [proxies=1000] [windowSeconds=60] [warmupSeconds=30]
 * [memoryLimit=512m] [collector=Serial|G1] [JVM flag to try...]}; the results are printed as
 * {@code key: value} lines. When the operator exits before the fleet is lent (out of memory), the
 * benchmark says how far it got, and how it ended.
 */
public final class FleetBenchmark {

    private static final String NS = "fleet";
    /** The longest the windows wait for latency reports from the fleet's creation to settle. */
    private static final Duration SETTLE = Duration.ofMinutes(5);
    private static final String TOKEN = "fleet-benchmark-token";
    /** Every request of the benchmark's own carries a User-Agent starting so; the mock leaves them out. */
    private static final String OURS = "fleet-";
    /**
     * The JVM as the Deployment's pod runs it, read from {@code deploy/base/deployment.yaml}: its
     * {@code JAVA_TOOL_OPTIONS} and {@code MALLOC_ARENA_MAX}, and the memory limit that the JVM
     * would read from the container, given here as MaxRAM, which sizes the heap (initial 1/64, at
     * most the share the options name); with under 2 GiB the JVM picks the Serial collector itself
     * (and here is told to, so that a larger limit still runs the pod's collector unless another is
     * named). Then the flags to try, which override the pod's.
     */
    private static List<String> operatorJvm() {
        List<String> jvm = new ArrayList<>(List.of("-XX:MaxRAM=" + memoryLimit, "-XX:+Use" + collector + "GC"));
        jvm.addAll(List.of(POD.env().get("JAVA_TOOL_OPTIONS").trim().split("\\s+")));
        jvm.add("-XX:NativeMemoryTracking=summary"); // before the benchmark's flags, which may turn it off
        jvm.addAll(extraJvm);
        return jvm;
    }

    /** What the benchmark takes from the Deployment's operator container. */
    private record Pod(Map<String, String> env, String memoryLimit) {

        static Pod of(Path deployment) throws IOException {
            Container c = new KubernetesSerialization().unmarshal(Files.readString(deployment), Deployment.class)
                    .getSpec().getTemplate().getSpec().getContainers().stream()
                    .filter(k -> k.getName().equals("operator")).findFirst().orElseThrow();
            Map<String, String> env = new HashMap<>();
            c.getEnv().stream().filter(e -> e.getValue() != null).forEach(e -> env.put(e.getName(), e.getValue()));
            Quantity limit = c.getResources().getLimits().get("memory");
            return new Pod(Map.copyOf(env), (Quantity.getAmountInBytes(limit).longValue() >> 20) + "m");
        }

        /** The variables the operator's JVM and its C library read, beside JAVA_TOOL_OPTIONS (passed as flags). */
        Map<String, String> process() {
            Map<String, String> env = new HashMap<>();
            Optional.ofNullable(this.env.get("MALLOC_ARENA_MAX")).ifPresent(v -> env.put("MALLOC_ARENA_MAX", v));
            return env;
        }
    }

    private static final Pod POD;

    static {
        try {
            POD = Pod.of(Path.of("deploy/base/deployment.yaml"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The memory limit the operator's JVM sizes itself for: the Deployment's unless the fourth argument says. */
    private static String memoryLimit = POD.memoryLimit();
    /** The collector: the one the JVM picks in the Deployment's pod unless the fifth argument names another. */
    private static String collector = "Serial";
    /** JVM flags to try on the operator, after the pod's own: the arguments after the fifth. */
    private static List<String> extraJvm = List.of();
    private static final Duration PERIOD = Duration.ofSeconds(10); // the CRD's default periodSeconds
    private static final double STEADY_PAIRS_PER_SECOND = 500;
    private static final int LOAD_CONNECTIONS = 8;
    private static final int CAPACITY_SECONDS = 20;
    private static final long CLOCK_TICKS = 100; // USER_HZ of /proc/<pid>/stat on Linux
    /** The page the loaded window reads each second beside the whole list. */
    private static final int PAGE = 500;
    private static final Pattern HEALTHY = Pattern.compile("\"healthy\":\\s*true");
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private FleetBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        int window = args.length > 1 ? Integer.parseInt(args[1]) : 60;
        int warmup = args.length > 2 ? Integer.parseInt(args[2]) : 30;
        memoryLimit = args.length > 3 ? args[3] : memoryLimit;
        collector = args.length > 4 ? args[4] : collector;
        extraJvm = args.length > 5 ? List.of(args).subList(5, args.length) : extraJvm;
        int perPool = n / 10;
        Path dir = Files.createTempDirectory("fleet-benchmark");
        System.out.printf("proxies: %d (%d plain, 2 pools of %d); window %d s after a warm-up of %d s; logs in %s%n",
                n, n - 2 * perPool, perPool, window, warmup, dir);
        System.out.printf("operator JVM: %s; environment: %s%n", String.join(" ", operatorJvm()), POD.process());
        try (Child proxies = Child.java(LoopbackProxies.class, List.of("-Xmx256m"), List.of("0"), dir);
                Child api = Child.java(MockApiServer.class, List.of("-Xmx12g"), List.of(), dir)) {
            int proxyPort = Integer.parseInt(proxies.awaitLine("ready ").substring(6));
            String master = api.awaitLine("ready ").substring(6);
            Operator first = Operator.launch(master, dir, "operator-1");
            Operator operator = first;
            try (KubernetesClient client = client(master)) {
                first.awaitReady(Duration.ofMinutes(2));
                System.out.printf("operator ready (empty cluster) in %d ms%n", first.sinceLaunchMillis());

                long created = createFleet(client, n, perPool, proxyPort);
                long t0 = System.nanoTime();
                int[] lent = {0};
                try {
                    awaitAlive(first, Duration.ofMinutes(60), () -> {
                        lent[0] = Math.max(lent[0], healthy(first));
                        return lent[0] == n;
                    });
                } catch (Exited e) {
                    exited(first, "before the fleet was lent, after (s)", (System.nanoTime() - t0) / 1e9);
                    print("  most Proxies lent as healthy before", lent[0]);
                    print("  Proxies created by the pools and the benchmark", client.resources(Proxy.class)
                            .inNamespace(NS).list().getItems().size());
                    return;
                }
                print("fleet created by the benchmark (s)", created / 1e9);
                print("fleet created to all lent as healthy (s)", (System.nanoTime() - t0 + created) / 1e9);

                Thread.sleep(Duration.ofSeconds(warmup)); // a benchmark's warm-up, not a test wait
                settle(client, first);
                first.scrape(); // as Prometheus would have: the window then holds a warm scrape, not the first
                steady("quiet", client, api, first, proxies, n, window, false);
                steady("loaded", client, api, first, proxies, n, window, true);
                heapAfterGc(operator);
                capacity(operator);
                long rollStart = System.nanoTime();
                try {
                    roll(client, api, operator, n, perPool);
                } catch (Exited e) {
                    exited(operator, "during the roll, after (s)", (System.nanoTime() - rollStart) / 1e9);
                    return;
                }
                operator = restart(operator, master, dir, n);
            } finally {
                operator.stop();
            }
        }
    }

    /** Creates the plain Proxies with 8 threads, then the two pools; returns the nanoseconds taken. */
    private static long createFleet(KubernetesClient client, int n, int perPool, int port) throws Exception {
        long start = System.nanoTime();
        int plain = n - 2 * perPool;
        ExecutorService creators = Executors.newFixedThreadPool(8);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            int first = t;
            done.add(creators.submit(() -> {
                for (int i = first; i < plain; i += 8) {
                    Proxy p = new Proxy();
                    p.setMetadata(new ObjectMetaBuilder().withNamespace(NS).withName("px-" + i).build());
                    p.setSpec(spec(port, "squid:1"));
                    client.resource(p).create();
                }
            }));
        }
        for (String name : List.of("pool-a", "pool-b")) {
            ProxyPool pool = new ProxyPool();
            pool.setMetadata(new ObjectMetaBuilder().withNamespace(NS).withName(name).build());
            pool.setSpec(new ProxyPoolSpec(perPool, new ProxyTemplate(null, spec(port, "squid:1")), null, null));
            client.resource(pool).create();
        }
        for (Future<?> f : done) {
            f.get();
        }
        creators.shutdown();
        return System.nanoTime() - start;
    }

    private static ProxySpec spec(int port, String image) {
        return new ProxySpec(null, FleetOperator.PROVIDER, port, Map.of(), null, null, null, null,
                new KubernetesSpec(image, null), null, null);
    }

    /**
     * A steady window, quiet (no client) or loaded (500 lease pairs/s and a list a second), and what
     * the operator spends in it.
     */
    private static void steady(String name, KubernetesClient client, Child api, Operator operator, Child proxies, int n,
            int window, boolean loaded) throws Exception {
        // What status says of latency as the window starts, so that a write in it shows what it moved.
        Map<String, Long> reported = reportedLatencies(client);
        print(name + " reported latency at the start: Proxies above 20 ms, highest (ms)", overReported(reported)
                + ", " + reported.values().stream().mapToLong(Long::longValue).max().orElse(0));
        // The window runs from the first scrape's request to the second's: the counters are read at
        // the start of each page, and a page of 10,000 Proxies' series takes seconds to fetch and parse.
        int gcBefore = operator.gcPauses().size();
        long cpu = operator.cpuTicks();
        long proxyCpu = proxies.cpuTicks();
        long start = System.nanoTime();
        api.command("reset", "reset");
        Exposition before = operator.scrape();
        List<Long> lists = new ArrayList<>();
        List<Long> pages = new ArrayList<>();
        Thread lister = Thread.ofPlatform().name("lister").start(() -> {
            long next = System.nanoTime();
            while (loaded && !Thread.currentThread().isInterrupted()) {
                long t = System.nanoTime();
                try {
                    operator.list("/v1/proxies");
                } catch (IOException e) {
                    System.out.println("list failed: " + e);
                } catch (InterruptedException e) {
                    return;
                }
                long p = System.nanoTime();
                synchronized (lists) {
                    lists.add(p - t);
                }
                try {
                    operator.list("/v1/proxies?limit=" + PAGE);
                } catch (IOException e) {
                    System.out.println("page failed: " + e);
                } catch (InterruptedException e) {
                    return;
                }
                synchronized (pages) {
                    pages.add(System.nanoTime() - p);
                }
                next += 1_000_000_000L;
                LockSupport.parkNanos(next - System.nanoTime());
            }
        });
        Map<String, String> load = Map.of();
        if (loaded) {
            load = LoadClient.runSteadyInChildJvm(List.of(operator.discoveryPort), TOKEN, LOAD_CONNECTIONS, window,
                    STEADY_PAIRS_PER_SECOND, 0, 1);
        } else {
            Thread.sleep(Duration.ofSeconds(window)); // the window itself, not a wait for a condition
        }
        lister.interrupt();
        lister.join();
        double seconds = (System.nanoTime() - start) / 1e9;
        double cores = (operator.cpuTicks() - cpu) / (double) CLOCK_TICKS / seconds;
        Exposition after = operator.scrape();
        String requests = api.command("requests " + OURS, "requests");

        print(name + " steady window (s)", seconds);
        print(name + " operator CPU (cores)", cores);
        print(name + " loopback proxies CPU (cores)", (proxies.cpuTicks() - proxyCpu) / (double) CLOCK_TICKS / seconds);
        print(name + " operator RSS (MiB)", operator.rssKib() / 1024.0);
        print(name + " operator RSS anonymous / file-backed (MiB)", operator.rssParts());
        List<String> pauses = operator.gcPauses();
        pauses = pauses.subList(gcBefore, pauses.size());
        double[] ms = pauses.stream().mapToDouble(l -> Double.parseDouble(l.replaceAll(".* ([0-9.]+)ms$", "$1")))
                .toArray();
        print(name + " GC pauses: young / full, total ms, longest ms", pauses.stream().filter(l -> l.contains(
                "Pause Young")).count() + " / " + pauses.stream().filter(l -> l.contains("Pause Full")).count() + ", "
                + Math.round(Arrays.stream(ms).sum()) + ", " + Math.round(Arrays.stream(ms).max().orElse(0)));
        double started = delta(before, after, "proxy_operator_healthcheck_start_lateness_seconds_count", Map.of());
        double scheduled = n * seconds / PERIOD.toSeconds();
        print(name + " probes started / scheduled", started + " / " + Math.round(scheduled) + String.format(" (%.1f %%)",
                100 * started / scheduled));
        for (String le : List.of("0.001", "0.005", "0.01", "0.05", "0.1", "0.5", "1.0")) {
            double within = delta(before, after, "proxy_operator_healthcheck_start_lateness_seconds_bucket",
                    Map.of("le", le));
            print(name + " probes started within " + le + " s of due (%)", 100 * within / started);
        }
        print(name + " probe failures", sum(after, "proxy_operator_healthcheck_failures_total")
                - sum(before, "proxy_operator_healthcheck_failures_total"));
        print(name + " API requests in the window, by verb:resource", requests.substring("requests".length()).strip());
        print(name + " API requests per hour, by verb:resource", perHour(requests, seconds));
        for (String body : api.lines("bodies update:proxies/status 5", "bodies end")) {
            String status = body.substring(Math.max(0, body.indexOf("\"status\"")));
            String path = body.substring(5, body.indexOf(' ', 5));
            String proxy = path.replaceAll(".*/proxies/([^/]+)/status$", "$1");
            print(name + " a status write", path + " latencyMillis " + reported.get(proxy) + " at the start; "
                    + status.substring(0, Math.min(status.length(), 500)));
        }
        if (!loaded) {
            return;
        }
        print(name + " lease pairs at 500/s: achieved / errors", load.get("calls") + " / " + load.get("errors"));
        print(name + " lease acquire p50 / p99 (ms)", load.get("first_p50") + " / " + load.get("first_p99"));
        print(name + " lease release p50 / p99 (ms)", load.get("second_p50") + " / " + load.get("second_p99"));
        List<Long> sorted;
        synchronized (lists) {
            sorted = lists.stream().sorted().toList();
        }
        print(name + " GET /v1/proxies: calls, p50 / p99 / max (ms)", sorted.size() + ", " + millis(quantile(sorted, 0.5))
                + " / " + millis(quantile(sorted, 0.99)) + " / " + millis(sorted.getLast()));
        print(name + " GET /v1/proxies answer (bytes)", operator.list("/v1/proxies").length());
        List<Long> sortedPages;
        synchronized (pages) {
            sortedPages = pages.stream().sorted().toList();
        }
        print(name + " GET /v1/proxies?limit=" + PAGE + ": calls, p50 / p99 / max (ms)", sortedPages.size() + ", "
                + millis(quantile(sortedPages, 0.5)) + " / " + millis(quantile(sortedPages, 0.99)) + " / "
                + millis(sortedPages.getLast()));
    }

    private static void heapAfterGc(Operator operator) throws Exception {
        operator.jcmd("GC.run");
        Exposition page = operator.scrape();
        List<String> histogram = operator.jcmd("GC.class_histogram");
        for (String line : histogram.subList(0, Math.min(histogram.size(), 18))) {
            print("heap histogram", line.strip());
        }
        // Tracking costs memory of its own, which the pod does not spend: a run may turn it off.
        List<String> nativeMemory = extraJvm.contains("-XX:NativeMemoryTracking=off") ? List.of("Total: not tracked")
                : operator.jcmd("VM.native_memory summary");
        for (String line : nativeMemory) {
            if (line.matches("(Total|-\\s+(Java Heap|Class|Thread|Code|GC|Compiler|Internal|Other|Symbol|Native Memory "
                    + "Tracking|Arena Chunk|Metaspace|Shared class space|Arguments|Module|Synchronizer|Serviceability|"
                    + "Object Monitors|Safepoint|String Deduplication|Tracing|Logging|Statistics)).*")) {
                print("native memory", line.strip());
            }
        }
        print("heap after a full GC (MiB)", page.value("jvm_memory_used_bytes", Map.of("area", "heap")).orElseThrow()
                / (1 << 20));
        print("operator RSS after the GC (MiB)", operator.rssKib() / 1024.0);
        print("operator RSS after the GC, anonymous / file-backed (MiB)", operator.rssParts());
    }

    private static void capacity(Operator operator) throws Exception {
        Map<String, String> r = LoadClient.runInChildJvm(operator.discoveryPort, TOKEN, "pairs", LOAD_CONNECTIONS,
                CAPACITY_SECONDS);
        print("lease pairs/s, closed loop, " + LOAD_CONNECTIONS + " connections",
                Long.parseLong(r.get("calls")) / Double.parseDouble(r.get("seconds")));
        print("  acquire p50 / p99 (ms), errors", r.get("first_p50") + " / " + r.get("first_p99") + ", "
                + r.get("errors"));
    }

    /** A new image for both pools' template; measured until every member is replaced and lent again. */
    private static void roll(KubernetesClient client, Child api, Operator operator, int n, int perPool)
            throws Exception {
        double passes = poolReconciles(operator.scrape());
        api.command("reset", "reset");
        long poolCpu = operator.threadCpuNanos("pool-");
        long cpu = operator.cpuTicks();
        long start = System.nanoTime();
        for (String name : List.of("pool-a", "pool-b")) {
            ProxyPool pool = client.resources(ProxyPool.class).inNamespace(NS).withName(name).get();
            pool.setSpec(new ProxyPoolSpec(pool.getSpec().replicas(), new ProxyTemplate(null,
                    new ProxySpec(null, FleetOperator.PROVIDER, pool.getSpec().template().spec().port(), Map.of(), null,
                            null, null, null, new KubernetesSpec("squid:2", null), null, null)), null, null));
            client.resource(pool).update();
        }
        awaitAlive(operator, Duration.ofMinutes(60), () -> rolled(client, "pool-a", perPool)
                && rolled(client, "pool-b", perPool) && healthy(operator) == n);
        double seconds = (System.nanoTime() - start) / 1e9;
        String requests = api.command("requests " + OURS, "requests");
        print("roll of " + 2 * perPool + " pooled members: to all replaced and lent (s)", seconds);
        print("  pool controller workers' CPU (s)", (operator.threadCpuNanos("pool-") - poolCpu) / 1e9);
        print("  operator CPU in all (s)", (operator.cpuTicks() - cpu) / (double) CLOCK_TICKS);
        print("  API requests, by verb:resource", requests.substring("requests".length()).strip());
        print("  pool reconciles", Math.round(poolReconciles(operator.scrape()) - passes));
    }

    private static double poolReconciles(Exposition page) {
        return page.samples().stream().filter(s -> s.name().equals("proxy_operator_reconcile_total")
                && "proxypool".equals(s.labels().get("controller"))).mapToDouble(Exposition.Sample::value).sum();
    }

    private static boolean rolled(KubernetesClient client, String name, int replicas) {
        ProxyPool pool = client.resources(ProxyPool.class).inNamespace(NS).withName(name).get();
        ProxyPoolStatus s = pool.getStatus();
        return s != null && Objects.equals(pool.getMetadata().getGeneration(), s.observedGeneration())
                && Objects.equals(s.replicas(), replicas) && Objects.equals(s.readyReplicas(), replicas)
                && Objects.equals(s.updatedReplicas(), replicas);
    }

    /** SIGTERM, then a new operator: how long until it is ready, and until it lends the whole fleet. */
    private static Operator restart(Operator old, String master, Path dir, int n) throws Exception {
        long stop = System.nanoTime();
        old.stop();
        print("SIGTERM to exit (ms)", (System.nanoTime() - stop) / 1_000_000);
        Operator next = Operator.launch(master, dir, "operator-2");
        next.awaitReady(Duration.ofMinutes(5));
        long ready = next.sinceLaunchMillis();
        await(Duration.ofMinutes(5), () -> healthy(next) == n);
        print("restart: exec to /readyz 200 (ms)", ready);
        print("restart: exec to the whole fleet lent (ms)", next.sinceLaunchMillis());
        return next;
    }

    private static int healthy(Operator operator) {
        try {
            Matcher m = HEALTHY.matcher(operator.list("/v1/proxies?healthy=true"));
            int count = 0;
            while (m.find()) {
                count++;
            }
            return count;
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private static double delta(Exposition before, Exposition after, String name, Map<String, String> labels) {
        return after.value(name, labels).orElse(0.0) - before.value(name, labels).orElse(0.0);
    }

    private static double sum(Exposition page, String name) {
        return page.samples().stream().filter(s -> s.name().equals(name)).mapToDouble(Exposition.Sample::value).sum();
    }

    /** The requests line's counts scaled to an hour (a watch is counted when it is made). */
    private static String perHour(String requests, double seconds) {
        StringBuilder out = new StringBuilder();
        for (String kv : requests.substring("requests".length()).strip().split(" ")) {
            if (!kv.isEmpty()) {
                out.append(kv, 0, kv.indexOf('=') + 1)
                        .append(Math.round(Double.parseDouble(kv.substring(kv.indexOf('=') + 1)) * 3600 / seconds))
                        .append(' ');
            }
        }
        return out.isEmpty() ? "none" : out.toString().strip();
    }

    private static long quantile(List<Long> sorted, double q) {
        return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(q * sorted.size()) - 1));
    }

    private static String millis(long nanos) {
        return String.format("%.1f", nanos / 1e6);
    }

    private static void print(String key, Object value) {
        System.out.println(key + ": " + (value instanceof Double d ? String.format("%.2f", d) : value));
        System.out.flush();
    }

    private static KubernetesClient client(String master) {
        Config config = Config.empty();
        config.setMasterUrl(master);
        config.setUserAgent(OURS + "benchmark");
        config.setRequestTimeout(60_000);
        return new KubernetesClientBuilder().withConfig(config).build();
    }

    /** Polls {@code condition} every second until it holds; fails after {@code bound}. */
    /** The operator's process ended while the benchmark waited on it (out of memory, as a rule). */
    private static final class Exited extends RuntimeException {
        Exited() {
            super("the operator exited", null, false, false);
        }
    }

    /** {@link #await}, ending at once with {@link Exited} when the operator's process has ended. */
    /**
     * Waits, up to {@link #SETTLE}, until no Proxy's status reports a latency above 20 ms. Every
     * proxy answers on loopback in a millisecond or two, but the probes made while the fleet was
     * created, on saturated cores, took tens of milliseconds, and status reported that; the latency
     * rule brings each back once two probes in a row show the move, at most once per
     * {@code --latency-report-interval}, and one reported just above 20 ms only when two probes
     * come in under a millisecond or so. Those corrections are the fleet's start, not its steady
     * state, so the windows wait for them and the benchmark says how many there were and how long
     * they took.
     */
    private static void settle(KubernetesClient client, Operator operator) {
        long start = System.nanoTime();
        int pending = overReported(reportedLatencies(client));
        print("after the warm-up: Proxies reporting a latency above 20 ms", pending);
        long deadline = start + SETTLE.toNanos();
        while (pending > 0 && System.nanoTime() - deadline < 0 && operator.child.process.isAlive()) {
            LockSupport.parkNanos(Duration.ofSeconds(5).toNanos()); // a list of the fleet each time: not every second
            pending = overReported(reportedLatencies(client));
        }
        print("  until none (s; at most " + SETTLE.toSeconds() + ")", (System.nanoTime() - start) / 1e9);
        print("  left", pending);
    }

    /** Each Proxy's {@code status.latencyMillis}, by name, for those that report one. */
    private static Map<String, Long> reportedLatencies(KubernetesClient client) {
        Map<String, Long> reported = new HashMap<>();
        for (Proxy p : client.resources(Proxy.class).inNamespace(NS).list().getItems()) {
            if (p.getStatus() != null && p.getStatus().latencyMillis() != null) {
                reported.put(p.getMetadata().getName(), p.getStatus().latencyMillis());
            }
        }
        return reported;
    }

    private static int overReported(Map<String, Long> reported) {
        return (int) reported.values().stream().filter(l -> l > 20).count();
    }

    private static void awaitAlive(Operator operator, Duration bound, BooleanSupplier condition) {
        await(bound, () -> {
            if (!operator.child.process.isAlive()) {
                throw new Exited();
            }
            return condition.getAsBoolean();
        });
    }

    /** How the operator ended: when, the JVM's own last words, its stderr and its last collection. */
    private static void exited(Operator operator, String when, double seconds) throws IOException {
        print("operator exited " + when, seconds);
        try (Stream<String> lines = Files.lines(operator.child.log)) {
            lines.filter(l -> !l.startsWith("{")).forEach(l -> print("  the JVM said", l)); // the rest is the log
        }
        for (String line : Files.readAllLines(operator.child.log.resolveSibling(operator.child.name + ".err"))) {
            print("  its stderr", line);
        }
        List<String> gc = operator.gcPauses();
        print("  its last collection", gc.isEmpty() ? "none" : gc.getLast());
    }

    private static void await(Duration bound, BooleanSupplier condition) {
        long deadline = System.nanoTime() + bound.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("not reached within " + bound);
            }
            LockSupport.parkNanos(Duration.ofSeconds(1).toNanos());
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** The operator's process, its three listeners, and when it was launched ({@code nanoTime}). */
    private record Operator(int discoveryPort, int healthPort, int metricsPort, Child child, long launched) {

        static Operator launch(String master, Path dir, String name) throws IOException {
            int discovery = freePort();
            int health = freePort();
            int metrics = freePort();
            long launched = System.nanoTime();
            List<String> jvm = operatorJvm();
            jvm.add("-Xlog:gc:file=" + dir.resolve(name + "-gc.log"));
            Map<String, String> env = new HashMap<>(POD.process());
            env.putAll(Map.of("KUBERNETES_MASTER", master, "KUBERNETES_AUTH_TRYKUBECONFIG", "false",
                    "KUBERNETES_NAMESPACE", NS, "DISCOVERY_TOKEN", TOKEN, "HOSTNAME", name));
            Child child = Child.start(name, FleetOperator.class, operatorClassPath(dir), jvm, List.of(
                    "--discovery-address=127.0.0.1:" + discovery, "--health-address=127.0.0.1:" + health,
                    "--metrics-address=127.0.0.1:" + metrics, "--leader-election-namespace=" + NS,
                    "--default-probe-url=http://127.0.0.1:9/generate_204"), env, dir, true);
            return new Operator(discovery, health, metrics, child, launched);
        }

        /**
         * The shaded jar, as the image runs it, and beside it only {@link FleetOperator}'s own classes
         * (copied out of the test classes, whose other classes and resources the operator must not see).
         */
        private static String operatorClassPath(Path dir) throws IOException {
            Path jar = Path.of("target/egress-proxies-operator.jar");
            if (!Files.isRegularFile(jar)) {
                throw new IllegalStateException(jar + " is missing: run mvn package -DskipTests first");
            }
            String pkg = FleetOperator.class.getPackageName().replace('.', '/');
            Path from = Path.of(FleetOperator.class.getProtectionDomain().getCodeSource().getLocation().getPath(), pkg);
            Path to = dir.resolve("operator-classes").resolve(pkg);
            Files.createDirectories(to);
            try (var classes = Files.list(from)) {
                for (Path c : classes.filter(c -> c.getFileName().toString().startsWith(
                        FleetOperator.class.getSimpleName())).toList()) {
                    Files.copy(c, to.resolve(c.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
            }
            return jar.toAbsolutePath() + ":" + dir.resolve("operator-classes");
        }

        long sinceLaunchMillis() {
            return (System.nanoTime() - launched) / 1_000_000;
        }

        void awaitReady(Duration bound) {
            await(bound, () -> {
                if (!child.process.isAlive()) {
                    throw new IllegalStateException("operator exited: see " + child.log);
                }
                try {
                    return get(URI.create("http://127.0.0.1:" + healthPort + "/readyz"), false).statusCode() == 200;
                } catch (IOException e) {
                    return false;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            });
        }

        String list(String path) throws IOException, InterruptedException {
            HttpResponse<String> r = get(URI.create("http://127.0.0.1:" + discoveryPort + path), true);
            if (r.statusCode() != 200) {
                throw new IOException(path + ": " + r.statusCode());
            }
            return r.body();
        }

        /**
         * The metrics page, asked for as Prometheus asks (gzip): the exporter then writes it through
         * a compressor in small pieces, where a plain answer of 10,000 Proxies' series (13 MB) is
         * one write that the JDK server keeps a buffer of twice its size for, per connection.
         */
        Exposition scrape() throws IOException, InterruptedException {
            HttpResponse<byte[]> page = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort
                    + "/metrics")).header("Accept-Encoding", "gzip").timeout(Duration.ofSeconds(60)).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            byte[] body = page.body();
            if (page.headers().firstValue("Content-Encoding").filter("gzip"::equalsIgnoreCase).isPresent()) {
                try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(body))) {
                    body = in.readAllBytes();
                }
            }
            return Exposition.parse(new String(body, StandardCharsets.UTF_8));
        }

        long cpuTicks() throws IOException {
            return child.cpuTicks();
        }

        /** The pauses in the GC log so far, a line each, oldest first. */
        List<String> gcPauses() throws IOException {
            return Files.readAllLines(child.log.resolveSibling(child.name + "-gc.log")).stream()
                    .filter(l -> l.contains("Pause") && l.endsWith("ms")).toList();
        }

        long rssKib() throws IOException {
            return child.rssKib();
        }

        String rssParts() throws IOException {
            return child.rssParts();
        }

        long threadCpuNanos(String prefix) throws IOException, InterruptedException {
            String answer = child.command("cpu " + prefix, "fleet-cpu " + prefix + " ");
            return Long.parseLong(answer.substring(answer.lastIndexOf(' ') + 1));
        }

        /** Runs a diagnostic command in the operator's JVM; its output's lines after the first (the pid). */
        List<String> jcmd(String command) throws IOException, InterruptedException {
            Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                    Long.toString(child.process.pid()), command).redirectErrorStream(true).start();
            List<String> out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
            if (p.waitFor() != 0) {
                throw new IllegalStateException("jcmd " + command + " failed: " + out);
            }
            return out.subList(Math.min(1, out.size()), out.size());
        }

        void stop() throws InterruptedException {
            child.close();
        }

        private static HttpResponse<String> get(URI uri, boolean token) throws IOException, InterruptedException {
            HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60));
            if (token) {
                b.header("Authorization", "Bearer " + TOKEN);
            }
            return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        }
    }

    /**
     * A child JVM on this classpath: its stdout's lines (or, for the operator, whose stdout is its
     * log, its stderr's) queued for {@link #awaitLine} and copied to {@code <dir>/<name>.out} (or
     * {@code .err}), the other stream to {@code <dir>/<name>.log};
     * stopped by its pid (SIGTERM, then a bounded wait).
     */
    private static final class Child implements AutoCloseable {
        final Process process;
        final String name;
        final Path log;
        private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

        private Child(Process process, String name, Path log, boolean linesOnStderr) {
            this.process = process;
            this.name = name;
            this.log = log;
            var source = linesOnStderr ? process.getErrorStream() : process.getInputStream();
            Path copy = Path.of(log.toString().replaceFirst("\\.log$", linesOnStderr ? ".err" : ".out"));
            Thread.ofPlatform().daemon().start(() -> {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(source, StandardCharsets.UTF_8));
                        var out = Files.newBufferedWriter(copy)) {
                    for (String line = in.readLine(); line != null; line = in.readLine()) {
                        lines.add(line);
                        out.write(line);
                        out.newLine();
                        out.flush();
                    }
                } catch (IOException e) {
                    // the process ended
                }
            });
        }

        static Child java(Class<?> main, List<String> jvm, List<String> args, Path dir) throws IOException {
            return start(main.getSimpleName(), main, System.getProperty("java.class.path"), jvm, args, Map.of(), dir,
                    false);
        }

        static Child start(String name, Class<?> main, String classPath, List<String> jvm, List<String> args,
                Map<String, String> env, Path dir, boolean linesOnStderr) throws IOException {
            List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                    .toString()));
            command.addAll(jvm);
            command.addAll(List.of("-cp", classPath, main.getName()));
            command.addAll(args);
            Path log = dir.resolve(name + ".log");
            ProcessBuilder pb = new ProcessBuilder(command);
            pb.environment().keySet().removeAll(Set.of("JAVA_TOOL_OPTIONS", "MALLOC_ARENA_MAX"));
            pb.environment().putAll(env);
            if (linesOnStderr) {
                pb.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
            } else {
                pb.redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
            }
            return new Child(pb.start(), name, log, linesOnStderr);
        }

        String awaitLine(String prefix) throws InterruptedException {
            long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            while (System.nanoTime() < deadline) {
                String line = lines.poll(1, TimeUnit.SECONDS);
                if (line != null && line.startsWith(prefix)) {
                    return line;
                }
                if (line == null && !process.isAlive()) {
                    break;
                }
            }
            throw new IllegalStateException("no line starting \"" + prefix + "\" from " + log);
        }

        /** Sends {@code command} on stdin and returns the first line after it starting with {@code answer}. */
        synchronized String command(String command, String answer) throws IOException, InterruptedException {
            lines.clear();
            process.getOutputStream().write((command + "\n").getBytes(StandardCharsets.UTF_8));
            process.getOutputStream().flush();
            return awaitLine(answer);
        }

        /** Sends {@code command} and returns the lines after it up to the one that is {@code end}. */
        synchronized List<String> lines(String command, String end) throws IOException, InterruptedException {
            lines.clear();
            process.getOutputStream().write((command + "\n").getBytes(StandardCharsets.UTF_8));
            process.getOutputStream().flush();
            List<String> got = new ArrayList<>();
            for (String line = lines.poll(1, TimeUnit.MINUTES); line != null && !line.equals(end);
                    line = lines.poll(1, TimeUnit.MINUTES)) {
                got.add(line);
            }
            return got;
        }

        long cpuTicks() throws IOException {
            String stat = Files.readString(Path.of("/proc", Long.toString(process.pid()), "stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime: fields 14 and 15 of stat
        }

        long rssKib() throws IOException {
            return status("VmRSS:");
        }

        /** The resident memory of its own (anonymous: heap, stacks, malloc) and of mapped files (the JDK's libraries). */
        String rssParts() throws IOException {
            return String.format("%.1f / %.1f", status("RssAnon:") / 1024.0, status("RssFile:") / 1024.0);
        }

        private long status(String field) throws IOException {
            return Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status")).stream()
                    .filter(l -> l.startsWith(field)).map(l -> Long.parseLong(l.replaceAll("[^0-9]", "")))
                    .findFirst().orElseThrow();
        }

        @Override
        public void close() throws InterruptedException {
            process.destroy(); // SIGTERM
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor();
            }
        }
    }
}
