package com.example.crawl.egress;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running operator's components in the order they must stop, and the wait for a reason to
 * stop them. {@link #register} pushes a component; {@link #stop} closes them in reverse, once,
 * logging (not throwing) what fails to close so that the rest still close.
 *
 * <p>Thread-safe. {@link #stop} is what the JVM shutdown hook calls on SIGTERM; {@link #fail}
 * only wakes {@link #await} with a failure code, because it may run on a thread that
 * {@link #stop} would wait for.
 */
final class Shutdown {

    private static final Logger LOG = LoggerFactory.getLogger(Shutdown.class);

    private final Deque<AutoCloseable> components = new ArrayDeque<>(); // guarded by this
    private final CountDownLatch requested = new CountDownLatch(1);
    private volatile int exitCode = Main.EXIT_OK;
    private boolean stopped; // guarded by this

    synchronized <T extends AutoCloseable> T register(T component) {
        components.push(component);
        return component;
    }

    /** Asks the process to end with {@code code} (a lost lease, a component that died). */
    void fail(int code) {
        exitCode = code;
        requested.countDown();
    }

    /** Blocks until {@link #stop} or {@link #fail} is called. */
    void await() throws InterruptedException {
        requested.await();
    }

    /** Closes every registered component, newest first; later calls wait for the first to finish. */
    synchronized void stop() {
        if (!stopped) {
            stopped = true;
            if (!components.isEmpty()) {
                LOG.atInfo().addKeyValue("components", components.size()).log("Shutting down");
            }
            while (!components.isEmpty()) {
                AutoCloseable component = components.pop();
                try {
                    component.close();
                } catch (Exception e) {
                    if (e instanceof InterruptedException) {
                        Thread.currentThread().interrupt();
                    }
                    LOG.atWarn().addKeyValue("component", component.getClass().getSimpleName()).setCause(e)
                            .log("Component failed to close");
                }
            }
        }
        requested.countDown();
    }

    int exitCode() {
        return exitCode;
    }
}
