package com.example.crawl.egress.discovery;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.client.ClientRegistry;
import com.example.crawl.egress.client.ClientSecret;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.lease.LeaseStore;
import com.example.crawl.egress.log.LogFormat;
import com.example.crawl.egress.log.LogSetup;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.event.Level;

/**
 * What tenancy costs and what it shares (issue 27), in one run, the server in this JVM as
 * {@link DiscoveryBenchmark} runs it (a static fleet, every filter, the request log and the audit
 * log formatted and discarded):
 * <ul>
 * <li><b>throughput</b>: {@link LoadClient} (a child JVM, 64 keep-alive connections) doing
 *     acquire+release pairs with the admin token, then over {@code clients} client tokens (connection
 *     i sends token i mod {@code clients}). Each client is scoped to one of the fleet's four regions
 *     and has a {@code maxLeases} and a {@code leaseRate}, both checked on every request and high
 *     enough not to refuse: the run measures what checking costs. Then the clients again while a
 *     second child JVM sends 1,000 requests a second with a wrong token from the same address.
 * <li><b>fairness</b>: a fleet of {@code contended} one-lease proxies and three clients in this
 *     JVM, each thread holding at most one lease: {@code greedy} (weight 1, twice as many threads
 *     as proxies, each asking again at once when refused), {@code calm} (weight 1, half as many,
 *     50 ms after a refusal) and {@code heavy} (weight 2, as many as proxies, likewise): twice and
 *     a half the fleet's capacity is asked for. Each holds a lease 100 ms. The store's leases per
 *     client are sampled every 10 ms; the averages are each client's share.
 * </ul>
 *
 * <p>Usage: {@code ClientLeasingBenchmark [proxies=1000] [clients=50] [seconds=20] [warmupSeconds=5]
 * [rounds=3] [contended=20] [fairSeconds=10]}
 */
public final class ClientLeasingBenchmark {

    private static final String ADMIN = "benchmark-admin-token-0123456789abcdef";
    private static final int CONNECTIONS = 64;
    private static final double WRONG_PER_SECOND = 1000;

    private ClientLeasingBenchmark() {
    }

    record Run(String name, double pairs, double p50, double p99, double releaseP99, long errors) { }

    public static void main(String[] args) throws Exception {
        int proxies = arg(args, 0, 1000);
        int clients = arg(args, 1, 50);
        int seconds = arg(args, 2, 20);
        int warmup = arg(args, 3, 5);
        int rounds = arg(args, 4, 3);
        int contended = arg(args, 5, 20);
        int fairSeconds = arg(args, 6, 10);
        LogSetup.configure(LogFormat.JSON, Level.INFO, new PrintStream(OutputStream.nullOutputStream()),
                Clock.systemUTC());
        List<Proxy> fleet = DiscoveryBenchmark.fleet(proxies);
        ClientRegistry registry = new ClientRegistry(System::nanoTime);
        List<String> tokens = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            String token = "bench-client-" + i + "-0123456789abcdef0123456789abcdef";
            tokens.add(token);
            register(registry, "client-" + i, Map.of("token", token, "namespaces", "crawl",
                    "selector", "{\"region\":\"r" + (i % 4) + "\"}", "maxLeases", "1000", "leaseRate", "100000"));
        }
        String clientTokens = String.join(",", tokens);
        try (LeaseStore store = store();
                DiscoveryServer server = new DiscoveryServer(new InetSocketAddress("127.0.0.1", 0), () -> fleet,
                        p -> Optional.of(DiscoveryBenchmark.CREDENTIALS), store, Optional.of(ADMIN), registry,
                        DiscoveryServer.Instrumentation.NONE)) {
            store.start();
            server.start();
            int port = server.address().getPort();
            System.out.printf("%d proxies, %d clients, %d s per run, %d rounds, %d connections%n", proxies, clients,
                    seconds, rounds, CONNECTIONS);
            pairs(port, ADMIN, "warm-up", warmup);
            pairs(port, clientTokens, "warm-up", warmup);
            for (int round = 1; round <= rounds; round++) {
                Run admin = pairs(port, ADMIN, "admin token only", seconds);
                Run many = pairs(port, clientTokens, clients + " clients with scopes and quotas", seconds);
                Process wrong = LoadClient.startWrongInChildJvm(port, "not-a-token-0123456789abcdef0123456789", 4,
                        seconds + 2, WRONG_PER_SECOND);
                Thread.sleep(1000); // the flood's JVM starting; it runs a second past the measured window
                Run flooded = pairs(port, clientTokens, clients + " clients, " + (int) WRONG_PER_SECOND
                        + " wrong-token requests/s beside", seconds);
                String wrongResult = new String(wrong.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
                wrong.waitFor();
                System.out.printf("%nround %d%n| run | pairs/s | acquire p50 ms | acquire p99 ms | release p99 ms "
                        + "| errors |%n|---|---|---|---|---|---|%n", round);
                for (Run r : List.of(admin, many, flooded)) {
                    System.out.printf("| %s | %,.0f | %.2f | %.2f | %.2f | %d |%n", r.name(), r.pairs(), r.p50(), r.p99(),
                            r.releaseP99(), r.errors());
                }
                System.out.printf("ratio clients ÷ admin %.2f (target ≥ 0.80); with the flood ÷ without %.2f; "
                        + "the flood: %s%n", many.pairs() / admin.pairs(), flooded.pairs() / many.pairs(),
                        summary(wrongResult, seconds + 2));
            }
        }
        fairness(contended, fairSeconds);
    }

    private static LeaseStore store() {
        return new LeaseStore(new OperatorConfig.Leases(Duration.ofMinutes(5), Duration.ofHours(1),
                Duration.ofMinutes(10), Duration.ofSeconds(30)), Clock.systemUTC(), System::nanoTime);
    }

    private static void register(ClientRegistry registry, String name, Map<String, String> data) throws Exception {
        registry.put(ClientSecret.parse(new SecretBuilder().withMetadata(new ObjectMetaBuilder().withName(name).build())
                .withStringData(data).build()));
    }

    private static Run pairs(int port, String tokens, String name, int seconds) throws Exception {
        Map<String, String> r = LoadClient.runInChildJvm(port, tokens, "pairs", CONNECTIONS, seconds);
        return new Run(name, Long.parseLong(r.get("calls")) / Double.parseDouble(r.get("seconds")),
                Double.parseDouble(r.get("first_p50")), Double.parseDouble(r.get("first_p99")),
                Double.parseDouble(r.get("second_p99")), Long.parseLong(r.get("errors")));
    }

    /** The flood's own line: how many it sent a second, how many were not 401, their p99. */
    private static String summary(String line, int seconds) {
        Map<String, String> r = new HashMap<>();
        Matcher m = Pattern.compile("(\\w+)=(\\S+)").matcher(line);
        while (m.find()) {
            r.put(m.group(1), m.group(2));
        }
        return String.format("%,.0f requests/s answered, %s not 401, 401 p99 %s ms",
                Long.parseLong(r.getOrDefault("calls", "0")) / Double.parseDouble(r.getOrDefault("seconds",
                        Integer.toString(seconds))), r.get("errors"), r.get("first_p99"));
    }

    /** Three clients, one greedy, contending for {@code capacity} one-lease proxies. */
    private static void fairness(int capacity, int seconds) throws Exception {
        List<Proxy> fleet = DiscoveryBenchmark.fleet(capacity);
        ClientRegistry registry = new ClientRegistry(System::nanoTime);
        record Contender(String name, String token, int weight, int threads, Duration backoff) { }
        List<Contender> contenders = List.of(
                new Contender("greedy", "fair-greedy-0123456789abcdef0123456789abcdef", 1, 2 * capacity, Duration.ZERO),
                new Contender("calm", "fair-calm-0123456789abcdef0123456789abcdef01", 1, capacity / 2,
                        Duration.ofMillis(50)),
                new Contender("heavy", "fair-heavy-0123456789abcdef0123456789abcdef0", 2, capacity,
                        Duration.ofMillis(50)));
        for (Contender c : contenders) {
            register(registry, c.name(), Map.of("token", c.token(), "namespaces", "crawl", "weight",
                    Integer.toString(c.weight())));
        }
        Map<String, LongAdder> asked = new HashMap<>();
        Map<String, LongAdder> granted = new HashMap<>();
        contenders.forEach(c -> {
            asked.put(c.name(), new LongAdder());
            granted.put(c.name(), new LongAdder());
        });
        try (LeaseStore store = store();
                DiscoveryServer server = new DiscoveryServer(new InetSocketAddress("127.0.0.1", 0), () -> fleet,
                        p -> Optional.of(DiscoveryBenchmark.CREDENTIALS), store, Optional.of(ADMIN), registry,
                        DiscoveryServer.Instrumentation.NONE);
                ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
                HttpClient http = HttpClient.newHttpClient()) {
            store.start();
            server.start();
            URI leases = URI.create("http://127.0.0.1:" + server.address().getPort() + "/v1/leases");
            AtomicBoolean running = new AtomicBoolean(true);
            for (Contender c : contenders) {
                for (int t = 0; t < c.threads(); t++) {
                    threads.submit(() -> {
                        while (running.get()) {
                            HttpResponse<String> r = http.send(HttpRequest.newBuilder(leases)
                                    .header("Authorization", "Bearer " + c.token())
                                    .POST(HttpRequest.BodyPublishers.ofString("{\"ttlSeconds\":60}")).build(),
                                    HttpResponse.BodyHandlers.ofString());
                            asked.get(c.name()).increment();
                            if (r.statusCode() == 201) {
                                granted.get(c.name()).increment();
                                String body = r.body();
                                int at = body.indexOf("\"leaseId\":\"") + 11;
                                String id = body.substring(at, body.indexOf('"', at));
                                Thread.sleep(100); // the crawl
                                http.send(HttpRequest.newBuilder(URI.create(leases + "/" + id))
                                        .header("Authorization", "Bearer " + c.token()).DELETE().build(),
                                        HttpResponse.BodyHandlers.discarding());
                            } else if (!c.backoff().isZero()) {
                                Thread.sleep(c.backoff().toMillis());
                            }
                        }
                        return null;
                    });
                }
            }
            Thread.sleep(2000); // into the steady state
            Map<String, Long> heldSum = new HashMap<>();
            long samples = 0;
            long end = System.nanoTime() + seconds * 1_000_000_000L;
            contenders.forEach(c -> {
                asked.get(c.name()).reset();
                granted.get(c.name()).reset();
            });
            while (System.nanoTime() < end) {
                Map<String, Integer> held = store.activeByClient();
                contenders.forEach(c -> heldSum.merge(c.name(), (long) held.getOrDefault(c.name(), 0), Long::sum));
                samples++;
                Thread.sleep(10);
            }
            running.set(false);
            System.out.printf("%nfairness: %d one-lease proxies, %d s, %d samples; expected shares by weight: "
                    + "greedy %.1f, calm %.1f, heavy %.1f%n", capacity, seconds, samples, capacity / 4.0,
                    capacity / 4.0, capacity / 2.0);
            System.out.println("| client | weight | threads | requests/s | grants/s | leases held on average | share |");
            System.out.println("|---|---|---|---|---|---|---|");
            for (Contender c : contenders) {
                double held = heldSum.get(c.name()) / (double) samples;
                System.out.printf("| %s | %d | %d | %,.0f | %,.1f | %.2f | %.0f %% |%n", c.name(), c.weight(), c.threads(),
                        asked.get(c.name()).sum() / (double) seconds, granted.get(c.name()).sum() / (double) seconds,
                        held, 100 * held / capacity);
            }
        }
    }

    private static int arg(String[] args, int i, int fallback) {
        return args.length > i ? Integer.parseInt(args[i]) : fallback;
    }
}
