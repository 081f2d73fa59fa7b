package com.example.crawl.egress.health;

import static com.example.crawl.egress.health.CallerThreads.run;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/** {@link HealthEngine#start} and {@link HealthEngine#close}, called from different threads as {@code Main} does. */
class HealthEngineLifecycleTest {

    private final EngineRig rig = new EngineRig();

    @Test
    void shouldRunTheScheduleOnAThreadOfItsOwnFromStartUntilClose() throws Exception {
        CountDownLatch listed = new CountDownLatch(1);
        AtomicReference<Thread> loop = new AtomicReference<>();
        rig.duringListing = () -> {
            loop.set(Thread.currentThread());
            listed.countDown();
        };
        try (CallerThreads threads = new CallerThreads()) {
            run(threads.scheduler, rig.engine::start); // as the leader election's callback starts it
            assertTrue(listed.await(10, TimeUnit.SECONDS), "the engine's thread ticks");
            ExecutionException twice = assertThrows(ExecutionException.class,
                    () -> run(threads.prober, rig.engine::start));
            assertInstanceOf(IllegalStateException.class, twice.getCause());

            run(threads.prober, rig.engine::close); // as the shutdown hook closes it
            loop.get().join(10_000);
            assertFalse(loop.get().isAlive(), "closed: the loop ended");
            run(threads.scheduler, rig.engine::close); // idempotent
            ExecutionException late = assertThrows(ExecutionException.class,
                    () -> run(threads.scheduler, rig.engine::start));
            assertInstanceOf(IllegalStateException.class, late.getCause());
        }
    }

    @Test
    void shouldCloseAnEngineNeverStartedAndNotStartItAfterwards() {
        rig.engine.close(); // a replica that never led still closes its engine at shutdown
        assertThrows(IllegalStateException.class, rig.engine::start);
    }
}
