package com.example.crawl.egress;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyStatus;
import com.example.crawl.egress.config.ConfigException;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.config.ProviderConfig;
import com.example.crawl.egress.config.ProvidersConfig;
import com.example.crawl.egress.provider.CreateRequest;
import com.example.crawl.egress.provider.Instance;
import com.example.crawl.egress.provider.InstanceState;
import com.example.crawl.egress.provider.Provider;
import com.example.crawl.egress.provider.ProviderDecorator;
import com.example.crawl.egress.provider.ProviderException;
import com.example.crawl.egress.provider.ProviderRegistry;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The operator of {@link FleetBenchmark}: {@link Main#run} as the product runs it, flags and
 * environment included, on a backend whose one provider, {@code fleet}, makes instances that run
 * at once on loopback addresses ({@code 127.x.y.z}, all served by one {@code LoopbackProxies}
 * process). Everything else is the product's composition.
 *
 * <p>The provider keeps an instance's id, owner and address and nothing else, as a cloud client
 * does (the tests' {@code FakeProvider} also keeps every create request, cloud-init included,
 * which would count in the operator's memory). Its instances outlive the operator, as a cloud's
 * do: on start it is seeded with every instance the Proxies' statuses name (one list, with a
 * client of its own), so that a restarted operator finds its fleet running instead of making it
 * again.
 *
 * <p>Its stdin takes one command, {@code cpu <prefix>}, answered on stderr as
 * {@code fleet-cpu <prefix> <nanoseconds>}: the CPU time of the live threads whose names start
 * with the prefix ({@code pool-}: the pool controller's workers).
 */
public final class FleetOperator {

    /** The provider name the benchmark's Proxies and pool templates name. */
    public static final String PROVIDER = "fleet";
    /** The User-Agent of the seeding list, so that the benchmark leaves it out of the operator's requests. */
    public static final String SEED_AGENT = "fleet-operator-seed";

    private FleetOperator() {
    }

    public static void main(String[] args) {
        Shutdown shutdown = new Shutdown();
        Runtime.getRuntime().addShutdownHook(new Thread(shutdown::stop, "shutdown"));
        Thread.ofPlatform().daemon().name("fleet-commands").start(FleetOperator::commands);
        System.exit(Main.run(Arrays.asList(args), System.getenv(), System.out, System.err, shutdown,
                FleetOperator::open));
    }

    private static Backend open(OperatorConfig config, ProviderDecorator decoration, Shutdown shutdown)
            throws ConfigException {
        KubernetesClient client = shutdown.register(Shutdown.Stage.CLIENTS, new KubernetesClientBuilder().build());
        LoopbackInstances instances = new LoopbackInstances(Clock.systemUTC());
        seed(instances, config.proxyNamespace());
        ProviderRegistry providers = ProviderRegistry.build(new ProvidersConfig(List.of(new ProviderConfig(PROVIDER,
                new ProviderConfig.Kubernetes("fleet", "squid:1")))), Map.of("kubernetes", c -> instances), decoration);
        return new Backend(config, client, providers, Optional.empty());
    }

    /** Seeds {@code instances} with those the Proxies' statuses name. */
    private static void seed(LoopbackInstances instances, String namespace) {
        Config config = new ConfigBuilder().withUserAgent(SEED_AGENT).build();
        try (KubernetesClient seeding = new KubernetesClientBuilder().withConfig(config).build()) {
            var proxies = seeding.resources(Proxy.class);
            List<Proxy> all = (namespace.isEmpty() ? proxies.inAnyNamespace().list()
                    : proxies.inNamespace(namespace).list()).getItems();
            for (Proxy p : all) {
                ProxyStatus s = p.getStatus();
                if (s != null && s.providerID() != null && s.ip() != null) {
                    instances.seed(new Instance(s.providerID(), LoopbackInstances.name(s.providerID()),
                            p.getMetadata().getUid(), InstanceState.Running, s.ip(),
                            Instant.parse(p.getMetadata().getCreationTimestamp())));
                }
            }
        }
    }

    /**
     * The provider: every instance runs from its create on, at the next loopback address; a
     * delete removes it at once. Thread-safe.
     */
    static final class LoopbackInstances implements Provider {
        private static final String PREFIX = "loopback/";
        private final Clock clock;
        private final Map<String, Instance> instances = new ConcurrentHashMap<>();
        private final AtomicInteger addresses = new AtomicInteger();

        LoopbackInstances(Clock clock) {
            this.clock = clock;
        }

        static String name(String providerID) {
            return providerID.substring(PREFIX.length());
        }

        void seed(Instance instance) {
            instances.put(instance.providerID(), instance);
            addresses.accumulateAndGet(number(instance.ip()), Math::max);
        }

        @Override
        public Instance create(CreateRequest req) {
            return instances.computeIfAbsent(PREFIX + req.name(), id -> new Instance(id, req.name(), req.ownerUid(),
                    InstanceState.Running, address(addresses.incrementAndGet()), clock.instant()));
        }

        @Override
        public Instance get(String providerID) throws ProviderException {
            Instance i = instances.get(providerID);
            if (i == null) {
                throw new ProviderException.NotFound("no instance " + providerID);
            }
            return i;
        }

        @Override
        public void delete(String providerID) {
            instances.remove(providerID);
        }

        @Override
        public List<Instance> listByTag() {
            return List.copyOf(instances.values());
        }

        /** {@code 127.x.y.z} for {@code n} up to 2^24 - 2: every one reaches a wildcard listener on loopback. */
        private static String address(int n) {
            return "127." + (n >> 16 & 255) + "." + (n >> 8 & 255) + "." + (n & 255);
        }

        private static int number(String ip) {
            String[] octets = ip.split("\\.");
            return Integer.parseInt(octets[1]) << 16 | Integer.parseInt(octets[2]) << 8 | Integer.parseInt(octets[3]);
        }
    }

    private static void commands() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (line.startsWith("cpu ")) {
                    String prefix = line.substring(4).strip();
                    long nanos = 0;
                    for (ThreadInfo t : threads.getThreadInfo(threads.getAllThreadIds())) {
                        if (t != null && t.getThreadName().startsWith(prefix)) {
                            nanos += Math.max(0, threads.getThreadCpuTime(t.getThreadId()));
                        }
                    }
                    System.err.println("fleet-cpu " + prefix + " " + nanos);
                }
            }
        } catch (IOException e) {
            // stdin closed: no more commands
        }
    }
}
