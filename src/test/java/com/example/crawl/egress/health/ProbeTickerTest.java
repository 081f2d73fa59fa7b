package com.example.crawl.egress.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.clock.FakeClock;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The scheduling thread's loop on a thread of its own, over fake time that moves only when the
 * test says so: each step the loop takes is handed to the test, which waits for it. The loop's
 * waits are real (a second at most), so a fire may also come from a wait running out; while
 * fake time stands still no tick may come at all.
 */
class ProbeTickerTest {

    private final FakeClock time = new FakeClock();
    private final BlockingQueue<String> steps = new LinkedBlockingQueue<>();
    private volatile Runnable duringTick = () -> { };
    private final ProbeTicker ticker = new ProbeTicker(time, this::tick, this::fire);
    private final Thread loop = Thread.ofPlatform().name("ticker-under-test").daemon().unstarted(ticker::run);

    private void tick() {
        steps.add("tick");
        duringTick.run();
    }

    private long fire() {
        steps.add("fire");
        return Long.MAX_VALUE;
    }

    private String next() throws InterruptedException {
        String step = steps.poll(10, TimeUnit.SECONDS);
        if (step == null) {
            throw new AssertionError("the loop took no step in 10 s");
        }
        return step;
    }

    /** The next step that is not a fire. */
    private String nextBesidesFire() throws InterruptedException {
        String step = next();
        while (step.equals("fire")) {
            step = next();
        }
        return step;
    }

    @AfterEach
    void stop() throws InterruptedException {
        ticker.close();
        loop.join(10_000);
    }

    @Test
    void shouldTickFirstThenStartWhatIsDueAndTickAgainOnlyWhenTheTickIsDue() throws InterruptedException {
        loop.start();
        assertEquals("tick", next());
        assertEquals("fire", next());

        ticker.wake();
        assertEquals("fire", next(), "no tick before one is due");
        time.advance(Duration.ofSeconds(1));
        ticker.wake();
        assertEquals("tick", nextBesidesFire());
        assertEquals("fire", next());
    }

    @Test
    void shouldKeepTickingAfterATickThatFailed() throws InterruptedException {
        duringTick = () -> {
            duringTick = () -> { };
            throw new IllegalStateException("the cache is not there yet");
        };
        loop.start();
        assertEquals("tick", next());
        assertEquals("fire", next(), "the failure was logged, the loop goes on");

        time.advance(Duration.ofSeconds(1));
        ticker.wake();
        assertEquals("tick", nextBesidesFire());
    }

    @Test
    void shouldTickOnceMoreAtMostAfterALongTickNotOncePerMissedSecond() throws InterruptedException {
        duringTick = () -> {
            duringTick = () -> { };
            time.advance(Duration.ofMillis(3500));
        };
        loop.start();
        assertEquals("tick", next());
        assertEquals("fire", next());
        assertEquals("tick", next(), "the loop came 2.5 s late to its next tick");
        assertEquals("fire", next());

        ticker.wake();
        assertEquals("fire", next(), "the missed ticks are not made up: the next is a second on");
        time.advance(Duration.ofSeconds(1));
        ticker.wake();
        assertEquals("tick", nextBesidesFire());
    }

    @Test
    void shouldKeepTicksOnTheirSecondsWhenTheLoopComesLateToOne() throws InterruptedException {
        loop.start();
        assertEquals("tick", next());
        assertEquals("fire", next());

        time.advance(Duration.ofMillis(1200));
        ticker.wake();
        assertEquals("tick", nextBesidesFire(), "200 ms late");
        time.advance(Duration.ofMillis(800));
        ticker.wake();
        assertEquals("tick", nextBesidesFire(), "due at 2 s, not 2.2 s");
    }

    @Test
    void shouldNotTickTwiceAtOnceWhenTheLoopComesAWholeTickLate() throws InterruptedException {
        loop.start();
        assertEquals("tick", next());
        assertEquals("fire", next());

        time.advance(Duration.ofSeconds(2));
        ticker.wake();
        assertEquals("tick", nextBesidesFire());
        assertEquals("fire", next());
        ticker.wake();
        assertEquals("fire", next(), "the next tick is a second on");
    }

    @Test
    void shouldEndTheLoopWhenClosed() throws InterruptedException {
        loop.start();
        assertEquals("tick", next());
        assertEquals("fire", next());

        ticker.close();
        loop.join(10_000);
        assertFalse(loop.isAlive(), "run() returned");
        assertTrue(ticker.closed());
        ticker.close(); // idempotent
        assertTrue(ticker.closed());
    }
}
