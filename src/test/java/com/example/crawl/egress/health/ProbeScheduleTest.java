package com.example.crawl.egress.health;

import static com.example.crawl.egress.health.CallerThreads.run;
import static com.example.crawl.egress.health.EngineRig.check;
import static com.example.crawl.egress.health.EngineRig.managed;
import static com.example.crawl.egress.health.EngineRig.subject;
import static com.example.crawl.egress.health.EngineRig.withHealthy;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.example.crawl.egress.clock.FakeClock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * The schedule on its own, on fake time, with probes that start only as jobs the test holds:
 * the jitter of first probes, which probes a tick plans, the time until the next one, permits,
 * and a late probe's next due time.
 */
class ProbeScheduleTest {

    private static final long SECOND = Duration.ofSeconds(1).toNanos();

    private final FakeClock time = new FakeClock();
    private final long origin = time.nanoTime();
    private final RecordedProbes recorded = new RecordedProbes();
    private final List<ProbeSubject> listed = new ArrayList<>();
    private final Deque<ProbeSchedule.Job> started = new ArrayDeque<>();
    /** The bounds the schedule drew its jitter under. */
    private final List<Long> bounds = new ArrayList<>();
    /** Whether each jitter drawn is the largest below its bound; else it is zero. */
    private boolean latest;
    /** How many jobs to refuse to launch, as an executor out of threads would. */
    private int refusedLaunches;
    @AutoClose
    private final CallerThreads threads = new CallerThreads();

    private final RandomGenerator random = new RandomGenerator() {
        @Override
        public long nextLong() {
            throw new UnsupportedOperationException("the schedule draws under a bound");
        }

        @Override
        public long nextLong(long bound) {
            bounds.add(bound);
            return latest ? bound - 1 : 0;
        }
    };

    private ProbeSchedule schedule(int permits) {
        VerdictTable verdicts = new VerdictTable(time, time, Duration.ofSeconds(60), recorded, key -> { });
        return new ProbeSchedule(() -> List.copyOf(listed), verdicts, this::launch, recorded, time, random, permits);
    }

    private void launch(ProbeSchedule.Job job, long startedNanos) {
        if (refusedLaunches > 0) {
            refusedLaunches--;
            throw new RejectedExecutionException("no thread for the probe");
        }
        started.add(job);
    }

    private static ProbeSubject proxy(String name, int periodSeconds) {
        return subject(managed(name, "10.0.0." + (1 + name.charAt(0) - 'a'), check(periodSeconds, 1, 3)));
    }

    private List<String> startedNames() {
        return started.stream().map(j -> j.key().name()).toList();
    }

    /** {@code s} shows up in the cache, and the informer tells the schedule. */
    private void appears(ProbeSchedule schedule, ProbeSubject s) {
        listed.add(s);
        schedule.changed(s);
    }

    /** Nanoseconds since the test began. */
    private long sinceOrigin(long nanoTime) {
        return nanoTime - origin;
    }

    @Test
    void shouldDrawANewProxysFirstProbeWithinOneTickAndASeededOnesWithinItsPeriod() {
        latest = true;
        listed.add(proxy("a", 10));
        listed.add(subject(withHealthy(managed("b", "10.0.0.2", check(10, 1, 3)), true, 20L)));
        ProbeSchedule schedule = schedule(10);

        schedule.tick();
        assertEquals(List.of(SECOND, 10 * SECOND), bounds);
        assertEquals(SECOND - 1, schedule.fire(), "a is due a nanosecond before the next tick; b is not planned");

        time.advance(Duration.ofNanos(SECOND - 1));
        assertEquals(Long.MAX_VALUE, schedule.fire());
        assertEquals(List.of("a"), startedNames());

        time.advance(Duration.ofNanos(8 * SECOND + 1));
        schedule.tick(); // 9 s in: b, due at 10 s less a nanosecond, falls before the next tick
        assertEquals(SECOND - 1, schedule.fire());
        time.advance(Duration.ofNanos(SECOND - 1));
        schedule.fire();
        assertEquals(List.of("a", "b"), startedNames());
        assertEquals(10 * SECOND - 1, sinceOrigin(started.getLast().due()));
    }

    @Test
    void shouldLeaveAProbeDueExactlyAtTheNextTickToThatTick() {
        listed.add(proxy("a", 1));
        ProbeSchedule schedule = schedule(10);
        schedule.tick();
        schedule.fire();
        schedule.finished(started.getLast()); // the next probe is due 1 s from now

        schedule.tick();
        assertEquals(Long.MAX_VALUE, schedule.fire(), "due at the next tick: not this tick's to plan");
        time.advance(Duration.ofNanos(1));
        schedule.tick();
        assertEquals(SECOND - 1, schedule.fire());
    }

    @Test
    void shouldPlanNothingForAProxyWhileItsProbeIsInFlight() {
        listed.add(proxy("a", 1));
        ProbeSchedule schedule = schedule(10);
        schedule.tick();
        schedule.fire();

        for (int i = 0; i < 3; i++) {
            time.advance(Duration.ofSeconds(1));
            schedule.tick();
            assertEquals(Long.MAX_VALUE, schedule.fire());
        }
        assertEquals(1, started.size());

        schedule.finished(started.getLast());
        schedule.tick();
        schedule.fire();
        assertEquals(2, started.size(), "overdue: started at once");
    }

    @Test
    void shouldWaitForAReleasedPermitRatherThanForATime() {
        latest = false;
        listed.add(proxy("a", 10));
        listed.add(proxy("b", 10));
        ProbeSchedule schedule = schedule(1);
        schedule.tick();

        assertEquals(Long.MAX_VALUE, schedule.fire(), "b is due, but waits for a released permit, not a time");
        assertEquals(List.of("a"), startedNames());
        time.advance(Duration.ofMillis(300));
        schedule.finished(started.getLast());
        schedule.fire();
        assertEquals(List.of("a", "b"), startedNames());
        assertEquals(List.of(Duration.ZERO, Duration.ofMillis(300)), recorded.lateness);
    }

    @Test
    void shouldDueTheNextProbeAPeriodAfterTheStartWhenAProbeStartedAPeriodLate() {
        listed.add(proxy("a", 1));
        ProbeSchedule schedule = schedule(10);
        schedule.tick();

        time.advance(Duration.ofSeconds(1)); // the scheduler comes back to fire a period late
        schedule.fire();
        assertEquals(List.of(Duration.ofSeconds(1)), recorded.lateness);
        schedule.finished(started.getLast());

        schedule.tick();
        assertEquals(Long.MAX_VALUE, schedule.fire(), "the missed slot is skipped, not probed at once");
        assertEquals(1, started.size());
        time.advance(Duration.ofSeconds(1));
        schedule.tick();
        schedule.fire();
        assertEquals(2, started.size());
        assertEquals(2 * SECOND, sinceOrigin(started.getLast().due()));
    }

    @Test
    void shouldDropAPlannedProbeOfAProxyThatIsNoLongerListed() {
        latest = true;
        listed.add(proxy("a", 10));
        ProbeSchedule schedule = schedule(10);
        schedule.tick();

        listed.clear();
        schedule.tick();
        assertEquals(Long.MAX_VALUE, schedule.fire(), "nothing planned is left");
        time.advance(Duration.ofSeconds(1));
        schedule.fire();
        assertEquals(List.of(), startedNames());
        assertEquals(List.of(EngineRig.key("a")), recorded.forgotten);
    }

    @Test
    void shouldDueTheNextProbeAPeriodAfterTheLastWasDueWhenItStartedLessThanAPeriodLate() {
        listed.add(proxy("a", 10));
        ProbeSchedule schedule = schedule(10);
        schedule.tick();
        time.advance(Duration.ofMillis(300));
        schedule.fire();
        schedule.finished(started.getLast());

        time.advance(Duration.ofMillis(9200)); // 9.5 s in
        schedule.tick();
        assertEquals(Duration.ofMillis(500).toNanos(), schedule.fire(), "due at 10 s, not 10.3 s");
        time.advance(Duration.ofMillis(500));
        schedule.fire();
        assertEquals(10 * SECOND, sinceOrigin(started.getLast().due()));
    }

    @Test
    void shouldDueTheNextProbeANewPeriodAfterTheLastStartWhenThePeriodIsEdited() {
        listed.add(proxy("a", 3600));
        ProbeSchedule schedule = schedule(10);
        schedule.tick();
        schedule.fire();
        schedule.finished(started.getLast());

        time.advance(Duration.ofSeconds(1));
        listed.set(0, proxy("a", 5));
        schedule.tick();
        assertEquals(Long.MAX_VALUE, schedule.fire(), "due 5 s after the last start, not yet planned");
        time.advance(Duration.ofMillis(3500));
        schedule.tick();
        assertEquals(Duration.ofMillis(500).toNanos(), schedule.fire());
        assertEquals(1, started.size());
    }

    @Test
    void shouldProbeNothingOnAChangeOnceClosed() {
        ProbeSchedule schedule = schedule(10);
        schedule.tick();
        schedule.close();

        schedule.changed(proxy("a", 10));
        assertEquals(Long.MAX_VALUE, schedule.fire());
        assertEquals(List.of(), startedNames());
    }

    @Test
    void shouldServeTheSchedulerInformerAndProbeThreadsWithoutOneBlockingAnother() throws Exception {
        listed.add(proxy("a", 10));
        ProbeSchedule schedule = schedule(10);
        refusedLaunches = 1;

        run(threads.scheduler, schedule::tick);
        run(threads.prober, () -> appears(schedule, proxy("b", 10)));
        run(threads.scheduler, schedule::fire); // a is refused a thread and given back; b starts
        assertEquals(List.of("b"), startedNames());
        run(threads.prober, () -> schedule.finished(started.getLast()));
        run(threads.scheduler, () -> appears(schedule, proxy("c", 10)));
        run(threads.prober, () -> appears(schedule, proxy("d", 10)));
        run(threads.scheduler, schedule::tick);
        run(threads.prober, schedule::fire); // a was given back with its next probe a period on
        assertEquals(List.of("c", "d"), startedNames().subList(1, 3).stream().sorted().toList());
        assertEquals(3, started.size());
    }

    @Test
    void shouldTakeARequestForAProbeOnAnyThreadWhileOneIsInFlightWithoutBlocking() throws Exception {
        listed.add(proxy("a", 10));
        ProbeSchedule schedule = schedule(10);
        run(threads.scheduler, schedule::tick);
        run(threads.scheduler, schedule::fire);
        assertEquals(List.of("a"), startedNames());

        assertEquals(true, CallerThreads.call(threads.prober, () -> schedule.probeNow(EngineRig.key("a"))));
        run(threads.scheduler, schedule::fire);
        assertEquals(List.of("a"), startedNames(), "never beside the probe in flight");
        run(threads.prober, () -> schedule.finished(started.getLast()));
        run(threads.scheduler, schedule::fire);

        assertEquals(List.of("a", "a"), startedNames());
        assertEquals(false, CallerThreads.call(threads.prober, () -> schedule.probeNow(EngineRig.key("b"))));
    }
}
