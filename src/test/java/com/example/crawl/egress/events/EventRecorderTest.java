package com.example.crawl.egress.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.clock.FakeClock;
import com.example.crawl.egress.pool.PoolEventReason;
import com.example.crawl.egress.proxy.LogLines;
import com.example.crawl.egress.proxy.ProxyEventReason;
import com.example.crawl.egress.runtime.EventReason;
import com.example.crawl.egress.runtime.ObjectEvent;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The recorder over a fake API and a fake clock: tests record, move the clock and call
 * {@code drain()} where the recorder's thread would run.
 */
class EventRecorderTest {

    static final Instant START = Instant.parse("2026-11-29T10:00:00Z");

    private final FakeClock clock = new FakeClock(START);
    private final FakeEventWriter api = new FakeEventWriter();
    private final EventRecorder recorder = new EventRecorder(api, "operator-0", EventRecorder.Windows.CLIENT_GO, clock);
    private LogLines log;

    @BeforeEach
    void captureLog() {
        log = LogLines.install();
    }

    @AfterEach
    void restoreLog() {
        LogLines.restore();
    }

    @Test
    void shouldNameAProxyPoolAsWhatAPoolEventIsAbout() {
        recorder.record(event("fleet", PoolEventReason.MembersCreated, "Created 2 members: fleet-a, fleet-b"));
        recorder.drain();

        Event e = api.events().getFirst();
        assertEquals("crawl.example.com/v1alpha1", e.getRegarding().getApiVersion());
        assertEquals("ProxyPool", e.getRegarding().getKind());
        assertEquals("fleet", e.getRegarding().getName());
        assertEquals("Scale", e.getAction());
    }

    @Test
    void shouldCreateAnEventAboutTheProxyFromThisController() {
        recorder.record(event("p1", ProxyEventReason.InstanceCreated, "Created instance fake/proxy-1"));
        recorder.drain();

        Event e = api.events().getFirst();
        assertEquals("crawl", e.getMetadata().getNamespace());
        assertEquals("p1." + Long.toHexString(START.getEpochSecond() * 1_000_000_000L), e.getMetadata().getName());
        assertEquals("crawl.example.com/v1alpha1", e.getRegarding().getApiVersion());
        assertEquals("Proxy", e.getRegarding().getKind());
        assertEquals("p1", e.getRegarding().getName());
        assertEquals("uid-p1", e.getRegarding().getUid());
        assertEquals("crawl.example.com/egress-proxies-operator", e.getReportingController());
        assertEquals("operator-0", e.getReportingInstance());
        assertEquals("Normal", e.getType());
        assertEquals("InstanceCreated", e.getReason());
        assertEquals("Create", e.getAction());
        assertEquals("Created instance fake/proxy-1", e.getNote());
        assertEquals("2026-11-29T10:00:00.000000Z", e.getEventTime().getTime());
        assertNull(e.getSeries());
    }

    @Test
    void shouldCountAHundredOccurrencesIntoOneEventWrittenThreeTimes() {
        for (int i = 0; i < 100; i++) {
            clock.advance(Duration.ofSeconds(10));
            recorder.record(event("p1", ProxyEventReason.Unhealthy, "Health checks through the proxy failed: flip " + i));
            recorder.drain();
        }
        assertEquals(2, api.events().getFirst().getSeries().getCount(), "later counts wait for the refresh or the end");

        clock.advance(Duration.ofMinutes(13));
        recorder.drain();

        Event series = api.events().getFirst();
        assertEquals(1, api.events().size());
        assertEquals(100, series.getSeries().getCount());
        assertEquals("2026-11-29T10:16:40.000000Z", series.getSeries().getLastObservedTime().getTime());
        assertEquals("Health checks through the proxy failed: flip 0", series.getNote(), "the first note stays");
        assertEquals(3, api.calls().size(), api.calls().toString());
    }

    @Test
    void shouldWriteTheCountOfASeriesStillGoingAtTheRefresh() {
        for (int minute = 1; minute <= 40; minute++) {
            clock.advance(Duration.ofMinutes(1));
            recorder.record(event("p1", ProxyEventReason.QuotaExceeded, "out of quota"));
            recorder.drain();
        }

        assertEquals(30, api.events().getFirst().getSeries().getCount(), "written at minute 30, the refresh");
        assertEquals(List.of("create crawl/" + api.events().getFirst().getMetadata().getName()),
                api.calls().subList(0, 1));
    }

    @Test
    void shouldStartANewEventOnceTheWindowHasPassed() {
        recorder.record(event("p1", ProxyEventReason.Unhealthy, "first"));
        recorder.drain();
        clock.advance(Duration.ofMinutes(13));
        recorder.drain();

        recorder.record(event("p1", ProxyEventReason.Unhealthy, "later"));
        recorder.drain();

        assertEquals(List.of("first", "later"), api.events("Unhealthy").stream().map(Event::getNote).toList());
        assertTrue(api.events().stream().allMatch(e -> e.getSeries() == null));
    }

    @Test
    void shouldKeepReasonsAndProxiesApart() {
        recorder.record(event("p1", ProxyEventReason.Unhealthy, "a"));
        recorder.record(event("p1", ProxyEventReason.QuotaExceeded, "b"));
        recorder.record(event("p2", ProxyEventReason.Unhealthy, "c"));
        recorder.record(event("p1", ProxyEventReason.Unhealthy, "d"));
        recorder.drain();

        assertEquals(3, api.events().size());
        assertEquals(2, api.events().getFirst().getSeries().getCount());
    }

    @Test
    void shouldDropNewEventsOfAProxyOverItsTokenBucketAndSpareOtherProxies() {
        EventRecorder quick = new EventRecorder(api, "operator-0",
                new EventRecorder.Windows(Duration.ofSeconds(1), Duration.ofMinutes(30)), clock);
        for (int i = 0; i < 30; i++) {
            clock.advance(Duration.ofSeconds(3));
            quick.drain(); // the last single Event is forgotten: the next occurrence is a new Event
            quick.record(event("p1", ProxyEventReason.Unhealthy, "occurrence " + i));
            quick.record(event("p2", ProxyEventReason.Unhealthy, "occurrence " + i));
            quick.drain();
        }

        assertEquals(25, api.events().stream().filter(e -> e.getRegarding().getName().equals("p1")).count());
        assertEquals(10, quick.rateLimited(), "five of p1 and five of p2");

        clock.advance(SpamFilter.REFILL);
        quick.drain();
        quick.record(event("p1", ProxyEventReason.Unhealthy, "refilled"));
        quick.drain();
        assertEquals("refilled", api.events("Unhealthy").getLast().getNote());
    }

    @Test
    void shouldDropWhatOverflowsTheQueueCountItAndSaySoOnce() {
        for (int i = 0; i < EventRecorder.QUEUE_CAPACITY + 3; i++) {
            recorder.record(event("p" + i, ProxyEventReason.InstanceCreated, "created"));
        }
        recorder.drain();
        recorder.record(event("late", ProxyEventReason.InstanceCreated, "created"));

        assertEquals(3, recorder.dropped());
        assertEquals(1, log.lines("Event queue is full or closed; dropping Events until it has room", l -> true).size());
        assertEquals(1, log.lines("Event queue has room again", l -> l.path("dropped").asLong() == 3).size());
    }

    @Test
    void shouldRetryAFailedWriteLaterWithoutHoldingUpOthers() {
        api.failNext(503);
        recorder.record(event("p1", ProxyEventReason.InstanceCreated, "created"));
        recorder.record(event("p2", ProxyEventReason.InstanceCreated, "created"));
        recorder.drain();
        assertEquals(List.of("p2"), names(api.events()));

        clock.advance(Aggregator.RETRY_EVERY);
        recorder.drain();

        assertEquals(List.of("p2", "p1"), names(api.events()));
        assertEquals(1, log.lines("Could not write Event; further failures are logged at debug", l -> true).size());
        assertEquals(1, log.lines("Writing Events again", l -> true).size());
    }

    @Test
    void shouldGiveUpAWriteAfterTwelveTriesAndLogOnlyTheFirstFailure() {
        api.failAlways(0);
        recorder.record(event("p1", ProxyEventReason.InstanceCreated, "created"));
        for (int i = 0; i < 20; i++) {
            recorder.drain();
            clock.advance(Aggregator.RETRY_EVERY);
        }

        assertEquals(Aggregator.MAX_TRIES, api.calls().size());
        assertEquals(1, log.all().stream().filter(l -> l.contains("Could not write Event")).count());
    }

    @Test
    void shouldDropAnEventTheApiRefusesWithoutRetrying() {
        api.failAlways(403);
        recorder.record(event("p1", ProxyEventReason.InstanceCreated, "created"));
        recorder.record(event("p2", ProxyEventReason.InstanceCreated, "created"));
        recorder.drain();
        clock.advance(Duration.ofMinutes(1));
        recorder.drain();

        assertEquals(2, api.calls().size());
        assertEquals(1, log.all().stream().filter(l -> l.contains("Could not write Event")).count());
    }

    @Test
    void shouldCreateAgainAnEventThatExpiredWhileItsSeriesWasOpen() {
        recorder.record(event("p1", ProxyEventReason.Unhealthy, "down"));
        recorder.drain();
        api.expire(api.events().getFirst());

        recorder.record(event("p1", ProxyEventReason.Unhealthy, "down again"));
        recorder.drain();

        assertEquals(1, api.events().size());
        assertEquals(2, api.events().getFirst().getSeries().getCount());
        assertEquals("down", api.events().getFirst().getNote());
    }

    @Test
    void shouldWriteTheLastCountsWhenClosed() throws InterruptedException {
        recorder.start();
        for (int i = 0; i < 5; i++) {
            recorder.record(event("p1", ProxyEventReason.Unhealthy, "down"));
        }

        recorder.close();
        recorder.close();

        assertEquals(5, api.events().getFirst().getSeries().getCount());
        recorder.record(event("p1", ProxyEventReason.Unhealthy, "after close"));
        assertEquals(1, recorder.dropped());
    }

    @Test
    void shouldNeverBlockTheCallerWhileTheApiHangs() throws InterruptedException {
        api.holdNextCreate();
        recorder.start();
        recorder.record(event("p0", ProxyEventReason.InstanceCreated, "created"));
        api.awaitEntered();

        for (int i = 1; i <= EventRecorder.QUEUE_CAPACITY + 1; i++) {
            recorder.record(event("p" + i, ProxyEventReason.InstanceCreated, "created"));
        }

        assertEquals(1, recorder.dropped(), "the queue holds 1000 while the thread waits on the API");
        api.release();
        recorder.close();
        assertEquals(EventRecorder.QUEUE_CAPACITY + 1, api.events().size());
    }

    static ObjectEvent event(String name, EventReason reason, String note) {
        String kind = reason instanceof PoolEventReason ? "ProxyPool" : "Proxy";
        return new ObjectEvent(new ObjectEvent.Regarding("crawl.example.com/v1alpha1", kind, "crawl", name, "uid-" + name),
                reason, note);
    }

    private static List<String> names(List<Event> events) {
        return events.stream().map(e -> e.getRegarding().getName()).toList();
    }
}
