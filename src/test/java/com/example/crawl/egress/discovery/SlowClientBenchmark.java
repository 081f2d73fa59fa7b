package com.example.crawl.egress.discovery;

import com.example.crawl.egress.JdkHttpServerLimits;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.lease.LeaseStore;
import com.example.crawl.egress.log.LogFormat;
import com.example.crawl.egress.log.LogSetup;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.event.Level;

/**
 * A normal client's lease calls with and without slow clients, in one run: the server runs in
 * this JVM with the connection limits applied first, as {@code Main} applies them, and N healthy
 * Proxies (a static supplier, no API server). Each round measures {@link LoadClient} with one
 * keep-alive connection doing acquire+release pairs back to back (a child JVM) twice: alone, then
 * while {@link SlowClientLoad} (another child JVM) keeps S connections dripping a request head a
 * byte a second, each reconnecting as soon as it is cut. Request logging stays on at INFO, its
 * lines discarded, as in {@link DiscoveryBenchmark}. Everything shares the machine's cores.
 *
 * <p>Usage: {@code SlowClientBenchmark [slowClients=500] [seconds=30] [warmupSeconds=10] [rounds=3]
 * [proxies=1000] [--discovery-...=value ...]}; the flags, as the operator takes them, change the
 * limits from their defaults.
 */
public final class SlowClientBenchmark {

    private static final String TOKEN = "benchmark-token-0123456789";

    private SlowClientBenchmark() {
    }

    /** One measured run of the normal client: pairs per second, acquire and release p50/p99 in ms. */
    record Run(double pairsPerSecond, double acquireP50, double acquireP99, double releaseP50, double releaseP99,
            long errors) { }

    public static void main(String[] args) throws Exception {
        List<String> flags = new ArrayList<>(List.of("--discovery-allow-unauthenticated"));
        List<String> numbers = new ArrayList<>();
        for (String a : args) {
            (a.startsWith("--") ? flags : numbers).add(a);
        }
        // First, before anything creates an HttpServer: the JDK reads these once per JVM.
        OperatorConfig.Discovery limits = OperatorConfig.parse(flags, Map.of()).discovery();
        JdkHttpServerLimits.apply(limits);
        int slow = numbers.size() > 0 ? Integer.parseInt(numbers.get(0)) : 500;
        int seconds = numbers.size() > 1 ? Integer.parseInt(numbers.get(1)) : 30;
        int warmup = numbers.size() > 2 ? Integer.parseInt(numbers.get(2)) : 10;
        int rounds = numbers.size() > 3 ? Integer.parseInt(numbers.get(3)) : 3;
        int proxies = numbers.size() > 4 ? Integer.parseInt(numbers.get(4)) : 1000;
        LogSetup.configure(LogFormat.JSON, Level.INFO, new PrintStream(OutputStream.nullOutputStream()),
                Clock.systemUTC());
        List<Proxy> fleet = DiscoveryBenchmark.fleet(proxies);
        try (LeaseStore store = new LeaseStore(new OperatorConfig.Leases(Duration.ofMinutes(5), Duration.ofHours(1),
                Duration.ofMinutes(10), Duration.ofSeconds(30)), Clock.systemUTC(), System::nanoTime);
                DiscoveryServer server = new DiscoveryServer(new InetSocketAddress("127.0.0.1", 0), () -> fleet,
                        p -> Optional.of(DiscoveryBenchmark.CREDENTIALS), store, Optional.of(TOKEN),
                        DiscoveryServer.Instrumentation.NONE)) {
            store.start();
            server.start();
            int port = server.address().getPort();
            System.out.printf("%s; %d slow clients, %d proxies, %d s per run, %d rounds, port %d%n", limits, slow,
                    proxies, seconds, rounds, port);
            normalClient(port, warmup);
            for (int round = 1; round <= rounds; round++) {
                Run alone = normalClient(port, seconds);
                SlowClients drip = SlowClients.start(port, slow, limits.requestTimeout());
                Run beside = normalClient(port, seconds);
                String cuts = drip.stop();
                report(round, alone, beside, cuts);
            }
        }
    }

    private static void report(int round, Run alone, Run beside, String cuts) {
        System.out.printf("%nround %d%n", round);
        System.out.println("| normal client | pairs/s | acquire p50 / p99 ms | release p50 / p99 ms | errors |");
        System.out.println("|---|---|---|---|---|");
        row("alone", alone);
        row("beside the slow clients", beside);
        System.out.printf("p99 ratio beside / alone: acquire %.2f, release %.2f (target: p99 < 50 ms beside)%n",
                beside.acquireP99() / alone.acquireP99(), beside.releaseP99() / alone.releaseP99());
        System.out.println("slow clients: " + cuts);
    }

    private static void row(String name, Run r) {
        System.out.printf("| %s | %,.0f | %.2f / %.2f | %.2f / %.2f | %d |%n", name, r.pairsPerSecond(), r.acquireP50(),
                r.acquireP99(), r.releaseP50(), r.releaseP99(), r.errors());
    }

    /** {@link SlowClientLoad} in a child JVM, and its stdout. */
    private record SlowClients(Process process, BufferedReader out) {

        /** Returns once the first connections are open. */
        static SlowClients start(int port, int clients, Duration deadline) throws Exception {
            Process p = new ProcessBuilder(java(), "-cp", System.getProperty("java.class.path"),
                    SlowClientLoad.class.getName(), "127.0.0.1", Integer.toString(port), Integer.toString(clients),
                    Long.toString(deadline.toMillis()), Long.toString(deadline.toSeconds() + 5))
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            String line = out.readLine();
            if (!"ready".equals(line)) {
                throw new IllegalStateException("slow clients did not start: " + line);
            }
            return new SlowClients(p, out);
        }

        /** Closes the slow clients' stdin, which ends them; their results line. */
        String stop() throws Exception {
            process.getOutputStream().close();
            String results = out.readLine();
            if (process.waitFor() != 0 || results == null) {
                throw new IllegalStateException("slow clients failed: " + results);
            }
            return results;
        }
    }

    /** {@link LoadClient} with one connection doing pairs, in a child JVM. */
    private static Run normalClient(int port, int seconds) throws Exception {
        Map<String, String> r = LoadClient.runInChildJvm(port, TOKEN, "pairs", 1, seconds);
        return new Run(Long.parseLong(r.get("calls")) / Double.parseDouble(r.get("seconds")), d(r, "first_p50"),
                d(r, "first_p99"), d(r, "second_p50"), d(r, "second_p99"), Long.parseLong(r.get("errors")));
    }

    private static double d(Map<String, String> r, String key) {
        return Double.parseDouble(r.get(key));
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
