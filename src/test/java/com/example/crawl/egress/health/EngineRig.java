package com.example.crawl.egress.health;

import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.Endpoint;
import com.example.crawl.egress.api.HealthCheck;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyCredentials;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.ProxyStatus;
import com.example.crawl.egress.api.Reason;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.clock.FakeClock;
import com.example.crawl.egress.config.OperatorConfig;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.TracerProvider;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.random.RandomGenerator;

/**
 * A {@link HealthEngine} driven by hand: fake time, a scripted prober, probes that run only when
 * the test says so, and a listener that records the keys it receives. No threads.
 */
final class EngineRig {
    static final URI DEFAULT_URL = URI.create("http://probe.test/generate_204");

    final FakeClock time = new FakeClock();
    final ScriptedProber prober = new ScriptedProber();
    /** Garbage collections this "JVM" has finished; a probe hook that adds one is a probe paused by a collection. */
    final AtomicLong collections = new AtomicLong();
    /** What the egress echo tells through each proxy address; an address without an answer fails. */
    final Map<String, EchoResult> echoes = new ConcurrentHashMap<>();
    /** Every echo fetch, in order. */
    final List<ProbeTarget> echoed = new CopyOnWriteArrayList<>();
    final List<Proxy> proxies = new CopyOnWriteArrayList<>();
    /** What each proxy (by name) demands, as its credentials Secret says now; none when absent. */
    final Map<String, ProxyCredentials> credentials = new ConcurrentHashMap<>();
    final List<ProxyKey> reported = new ArrayList<>();
    final RecordedProbes recorded = new RecordedProbes();
    final List<ProxyKey> forgotten = recorded.forgotten;
    final List<ProxyKey> finished = recorded.finished;
    final List<Duration> lateness = recorded.lateness;
    final Deque<Runnable> probes = new ArrayDeque<>();
    int listenerFailures;
    /** How many probe threads to refuse to start, as an executor out of threads would. */
    int refusedThreads;
    /** Runs while the engine lists the proxies, after the list was taken: a change racing a tick. */
    Runnable duringListing = () -> { };
    final HealthEngine engine;

    EngineRig(int maxConcurrent, RandomGenerator random) {
        this(maxConcurrent, random, TracerProvider.noop().get("test"), false, Optional.empty());
    }

    /** Jitter zero, probes made spans of with {@code tracer} as {@code --trace-health-probes=<trace>} says. */
    EngineRig(Tracer tracer, boolean trace) {
        this(256, () -> 0L, tracer, trace, Optional.empty());
    }

    /** Jitter zero, with the egress echo {@code echo}, answered from {@link #echoes}. */
    EngineRig(OperatorConfig.Echo echo) {
        this(256, () -> 0L, TracerProvider.noop().get("test"), false, Optional.of(echo));
    }

    private EngineRig(int maxConcurrent, RandomGenerator random, Tracer tracer, boolean trace,
            Optional<OperatorConfig.Echo> echo) {
        engine = new HealthEngine(this::list, p -> Optional.ofNullable(credentials.get(p.getMetadata().getName())), prober, this::echo, this::report,
                new OperatorConfig.Probes(DEFAULT_URL, maxConcurrent, Duration.ofSeconds(60), trace, echo), recorded,
                tracer, new HealthEngine.Seams(time, time, this::startThread, random, collections::get));
    }

    private EchoResult echo(ProbeTarget target) {
        echoed.add(target);
        return echoes.getOrDefault(target.proxyHost(), new EchoResult.Failed("no echo scripted"));
    }

    /** Jitter always zero: first probes are due at once. */
    EngineRig() {
        this(256, () -> 0L);
    }

    private void startThread(Runnable probe) {
        if (refusedThreads > 0) {
            refusedThreads--;
            throw new RejectedExecutionException("no thread for the probe");
        }
        probes.add(probe);
    }

    private List<Proxy> list() {
        List<Proxy> listed = List.copyOf(proxies);
        duringListing.run();
        return listed;
    }

    private void report(ProxyKey key) {
        if (listenerFailures > 0) {
            listenerFailures--;
            throw new IllegalStateException("queue refused the key");
        }
        reported.add(key);
    }

    /** One scheduler round: tick, start what is due, let every started probe finish. */
    void round() {
        engine.tick();
        engine.fire();
        runProbes();
    }

    /** Runs {@code count} rounds one second apart, starting now. */
    void seconds(int count) {
        for (int i = 0; i < count; i++) {
            round();
            time.advance(Duration.ofSeconds(1));
        }
    }

    void runProbes() {
        while (!probes.isEmpty()) {
            probes.poll().run();
        }
    }

    static ProxyKey key(String name) {
        return new ProxyKey("crawl", name);
    }

    static HealthCheck check(int period, int success, int failure) {
        return new HealthCheck(null, null, period, Math.min(5, period), success, failure, null);
    }

    static Proxy managed(String name, String ip, HealthCheck check) {
        return managedAt(name, ip, null, check);
    }

    /** A managed proxy running at {@code ip}, listening on {@code port} (null: the default 3128). */
    static Proxy managedAt(String name, String ip, Integer port, HealthCheck check) {
        return proxy(name, new ProxySpec(null, "fake", port, Map.of(), null, null, null, null, null, null, check),
                ProxyStatus.EMPTY.withIp(ip));
    }

    static Proxy external(String name, String host, int port, HealthCheck check) {
        return proxy(name, new ProxySpec(ProxySpec.Mode.External, null, null, Map.of(), null, null, null, null, null,
                new Endpoint(host, port, null), check), ProxyStatus.EMPTY);
    }

    /** The same proxy with a {@code Healthy} condition (and latency) already in status, as another leader left it. */
    static Proxy withHealthy(Proxy p, boolean healthy, Long latencyMillis) {
        ProxyStatus s = p.getStatus().withHealth(latencyMillis, "2026-11-29T09:59:00Z")
                .withCondition(Condition.of(Condition.HEALTHY, healthy, 1L,
                        healthy ? Reason.ProbeSucceeded : Reason.ProbeFailed, "from before", java.time.Instant.EPOCH));
        return proxy(p.getMetadata().getName(), p.getSpec(), s);
    }

    /** What the engine probes for {@code p}, with the default probe URL and no credentials. */
    static ProbeSubject subject(Proxy p) {
        return ProbeSubject.of(p, DEFAULT_URL, x -> Optional.empty()).orElseThrow();
    }

    /** The same proxy with {@code egressIP} in status, as another leader left it. */
    static Proxy withEgressIP(Proxy p, String egressIP) {
        return proxy(p.getMetadata().getName(), p.getSpec(), p.getStatus().withEgressIP(egressIP));
    }

    /**
     * A new version of {@code p} marked for deletion. Like the informer cache, the engine takes a
     * Proxy object as it is for as long as it is listed: a change is a new object, never an edit.
     */
    static Proxy deleting(Proxy p) {
        Proxy next = proxy(p.getMetadata().getName(), p.getSpec(), p.getStatus());
        next.getMetadata().setDeletionTimestamp("2026-11-29T10:00:01Z");
        return next;
    }

    static Proxy withIp(Proxy p, String ip) {
        return proxy(p.getMetadata().getName(), p.getSpec(), ProxyStatus.EMPTY.withIp(ip));
    }

    private static Proxy proxy(String name, ProxySpec spec, ProxyStatus status) {
        Proxy p = new Proxy();
        p.setMetadata(new ObjectMetaBuilder().withNamespace("crawl").withName(name).withUid("uid-" + name).build());
        p.setSpec(spec);
        p.setStatus(status);
        return p;
    }
}
