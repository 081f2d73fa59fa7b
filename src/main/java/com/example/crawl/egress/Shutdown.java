package com.example.crawl.egress;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running operator's components, each registered as it is made under the {@link Stage} it
 * stops in, and the wait for a reason to stop them. {@link #stop} closes the stages in the order
 * {@link Stage} declares them, and within a stage the newest first, once, logging (not throwing)
 * what fails to close so that the rest still close. The stop order is therefore the one list of
 * {@link Stage}, not the order of construction.
 *
 * <p>Thread-safe. {@link #stop} is what the JVM shutdown hook calls on SIGTERM; {@link #fail}
 * only wakes {@link #await} with a failure code, because it may run on a thread that
 * {@link #stop} would wait for.
 */
final class Shutdown {

    /** When a component stops, in order. */
    enum Stage {
        /** What serves requests (discovery, /metrics, /healthz): nothing new arrives. */
        LISTENERS,
        /** The lease store's sweeper. */
        LEASES,
        /** The informers: no more events, no more keys. */
        INFORMERS,
        /** The health engine: no more probes, no more verdicts. */
        PROBES,
        /** The workers drain the queue (up to the drain timeout). */
        WORKERS,
        /** The Event recorder writes the counts the workers left. */
        EVENTS,
        /** The Lease is released, then the thread that ran the leader's start. */
        LEADERSHIP,
        /** What the rest used to reach the world: the prober's watchdog, the Kubernetes client or local mode. */
        CLIENTS,
        /** The tracing SDK exports what spans are left, the shutdown's own included. */
        TELEMETRY
    }

    private static final Logger LOG = LoggerFactory.getLogger(Shutdown.class);

    private final Map<Stage, Deque<AutoCloseable>> components = new EnumMap<>(Stage.class); // guarded by this
    private final CountDownLatch requested = new CountDownLatch(1);
    private volatile int exitCode = Main.EXIT_OK;
    private boolean stopped; // guarded by this

    /** Registers {@code component} to stop in {@code stage}; returns it. */
    synchronized <T extends AutoCloseable> T register(Stage stage, T component) {
        components.computeIfAbsent(stage, s -> new ArrayDeque<>()).push(component);
        return component;
    }

    /** Asks the process to end with {@code code} (a lost lease, a component that died, bad input). */
    void fail(int code) {
        exitCode = code;
        requested.countDown();
    }

    /** Blocks until {@link #stop} or {@link #fail} is called. */
    void await() throws InterruptedException {
        requested.await();
    }

    /** Closes every registered component, stage by stage; later calls wait for the first to finish. */
    synchronized void stop() {
        if (!stopped) {
            stopped = true;
            if (!components.isEmpty()) {
                LOG.atInfo().addKeyValue("components", components.values().stream().mapToInt(Deque::size).sum())
                        .log("Shutting down");
            }
            for (Map.Entry<Stage, Deque<AutoCloseable>> stage : components.entrySet()) { // EnumMap: declaration order
                while (!stage.getValue().isEmpty()) {
                    close(stage.getKey(), stage.getValue().pop());
                }
            }
            components.clear();
        }
        requested.countDown();
    }

    int exitCode() {
        return exitCode;
    }

    private static void close(Stage stage, AutoCloseable component) {
        try {
            component.close();
            LOG.atDebug().addKeyValue("stage", stage).addKeyValue("component", component.getClass().getSimpleName())
                    .log("Stopped component");
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            LOG.atWarn().addKeyValue("stage", stage).addKeyValue("component", component.getClass().getSimpleName())
                    .setCause(e).log("Component failed to close");
        }
    }
}
