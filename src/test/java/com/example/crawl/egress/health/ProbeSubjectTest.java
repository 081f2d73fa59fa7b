package com.example.crawl.egress.health;

import static com.example.crawl.egress.health.EngineRig.check;
import static com.example.crawl.egress.health.EngineRig.managed;
import static com.example.crawl.egress.health.EngineRig.subject;
import static com.example.crawl.egress.health.EngineRig.withHealthy;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.Proxy;

import org.junit.jupiter.api.Test;

import java.util.Optional;

/** What a proxy's status says about its health before the engine probed it: the seed. */
class ProbeSubjectTest {

    private final Proxy a = managed("a", "10.0.0.1", check(10, 1, 3));

    @Test
    void shouldSeedFromATrueOrFalseHealthyConditionWithItsLatency() {
        assertEquals(Optional.of(true), subject(withHealthy(a, true, 40L)).seed());
        assertEquals(40L, subject(withHealthy(a, true, 40L)).seedLatency());
        assertEquals(Optional.of(false), subject(withHealthy(a, false, null)).seed());
    }

    @Test
    void shouldNotSeedFromAnUnknownHealthyConditionOrNone() {
        assertEquals(Optional.empty(), subject(a).seed());
        Proxy unknown = withHealthy(a, true, 40L);
        unknown.setStatus(unknown.getStatus().withCondition(new Condition(Condition.HEALTHY, Condition.UNKNOWN, 1L,
                "2026-11-29T09:59:00Z", "Probing", "not probed yet")));
        assertEquals(Optional.empty(), subject(unknown).seed());
    }
}
