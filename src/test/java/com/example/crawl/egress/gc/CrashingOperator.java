package com.example.crawl.egress.gc;

import com.example.crawl.egress.cache.ProxyInformers;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.config.ProviderConfig;
import com.example.crawl.egress.health.ConnectProber;
import com.example.crawl.egress.health.EgressEcho;
import com.example.crawl.egress.health.HealthEngine;
import com.example.crawl.egress.health.ProbeRecorder;
import com.example.crawl.egress.log.LogFormat;
import com.example.crawl.egress.log.LogSetup;
import com.example.crawl.egress.provider.CreateRequest;
import com.example.crawl.egress.provider.EgressPolicy;
import com.example.crawl.egress.provider.ForwardingProvider;
import com.example.crawl.egress.provider.Instance;
import com.example.crawl.egress.provider.Provider;
import com.example.crawl.egress.provider.ProviderException;
import com.example.crawl.egress.provider.local.LocalProvider;
import com.example.crawl.egress.proxy.ClusterProxyStore;
import com.example.crawl.egress.proxy.ProxyReconciler;
import com.example.crawl.egress.queue.RateLimiter;
import com.example.crawl.egress.queue.WorkQueue;
import com.example.crawl.egress.runtime.EventSink;
import com.example.crawl.egress.runtime.Workers;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.TracerProvider;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.slf4j.event.Level;

/**
 * The operator's control loop, health engine and orphan sweeper, wired as {@code Main} wires them,
 * with the real {@code local} provider (named {@code local}), in a JVM of its own against an API
 * server the parent test runs: the child process {@link GcCrashIT} kills with SIGKILL. Logs JSON
 * lines on stdout and runs until killed.
 *
 * <p>Arguments, each {@code key=value}: {@code api} (the API server's URL), {@code state} (the
 * local provider's state directory), {@code target} (a loopback port the Squids may reach: the
 * probe target), {@code gcInterval} and {@code gcMinAge} (milliseconds), and optionally
 * {@code hangAfterCreate}: the name of a Proxy whose create, once the instance exists, prints
 * {@code CREATED <providerID>} and then never returns, so that the status recording the instance
 * is never written.
 */
public final class CrashingOperator {

    static final String CREATED = "CREATED ";
    private static final Tracer NOOP = TracerProvider.noop().get("test");

    private CrashingOperator() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> a = new HashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            a.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        LogSetup.configure(LogFormat.JSON, Level.INFO, System.out, Clock.systemUTC());
        KubernetesClient client = new KubernetesClientBuilder().withConfig(new ConfigBuilder()
                .withMasterUrl(a.get("api")).withRequestRetryBackoffLimit(0).build()).build();
        Provider local = LocalProvider.create(new ProviderConfig("local", new ProviderConfig.Local(
                Path.of(a.get("state")), "squid")), EgressPolicy.DEFAULT.allowing(
                        new EgressPolicy.Destination("127.0.0.1", Integer.parseInt(a.get("target")))));
        String hangFor = a.get("hangAfterCreate");
        var providers = Registries.of("local", hangFor == null ? local : new HangAfterCreate(local, hangFor));

        ProxyInformers informers = new ProxyInformers(client, "");
        WorkQueue<ProxyKey> queue = new WorkQueue<>(RateLimiter.defaultControllerLimiter(System::nanoTime),
                System::nanoTime);
        HealthEngine engine = new HealthEngine(informers::proxies, informers::credentials, new ConnectProber(),
                EgressEcho.NONE, queue::add, new OperatorConfig.Probes(URI.create("http://unused.invalid/"), 100, Duration.ofMinutes(1),
                        false), ProbeRecorder.NONE, NOOP);
        OperatorConfig.Reconcile intervals = new OperatorConfig.Reconcile(2, Duration.ofMillis(200),
                Duration.ofMillis(200), Duration.ofSeconds(1), Duration.ofSeconds(30), Duration.ofMillis(100));
        ProxyReconciler reconciler = new ProxyReconciler(new ClusterProxyStore(client, informers, NOOP), providers,
                engine, EventSink.NONE, intervals, Clock.systemUTC(), NOOP);
        Workers<ProxyKey> controller = new Workers<>("Proxy", "proxy", reconciler, queue, intervals.maxConcurrentReconciles(),
                Thread.ofPlatform().name("reconcile-", 0).factory(), Duration.ofSeconds(5),
                Workers.Instrumentation.NONE);
        OrphanSweeper gc = new OrphanSweeper(client, providers, new OperatorConfig.Gc(millis(a, "gcInterval"),
                millis(a, "gcMinAge"), false), "", GcRecorder.NONE, NOOP);

        informers.observe(engine::changed);
        informers.start(controller::enqueue);
        informers.awaitSynced(Duration.ofSeconds(30), a.get("api"));
        controller.start();
        engine.start();
        gc.start();
        new CountDownLatch(1).await(); // until killed
    }

    private static Duration millis(Map<String, String> a, String key) {
        return Duration.ofMillis(Long.parseLong(a.get(key)));
    }

    /** The crash hook: after the create of one Proxy's instance, say so and hang, as a process frozen there would. */
    private static final class HangAfterCreate extends ForwardingProvider {
        private final String proxyName;

        HangAfterCreate(Provider delegate, String proxyName) {
            super(delegate);
            this.proxyName = proxyName;
        }

        @Override
        public Instance create(CreateRequest req) throws ProviderException {
            Instance made = super.create(req);
            if (req.proxyName().equals(proxyName)) {
                System.out.println(CREATED + made.providerID());
                System.out.flush();
                try {
                    new CountDownLatch(1).await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new ProviderException.Transient("interrupted while hanging", e);
                }
            }
            return made;
        }
    }
}
