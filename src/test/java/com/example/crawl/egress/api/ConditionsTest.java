package com.example.crawl.egress.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConditionsTest {

    private static final Instant T0 = Instant.parse("2026-11-29T10:00:00.750Z");
    private static final Instant T1 = Instant.parse("2026-11-29T10:05:00Z");

    @Test
    void shouldFormatTimesAsWholeSecondsUtc() {
        assertEquals("2026-11-29T10:00:00Z", Conditions.timestamp(T0));
    }

    @Test
    void shouldAddAMissingConditionWithItsObservationTime() {
        List<Condition> out = Conditions.set(List.of(), Condition.of("Healthy", true, 1, Reason.ProbeSucceeded, "ok", T0));
        assertEquals(1, out.size());
        assertEquals("2026-11-29T10:00:00Z", out.get(0).lastTransitionTime());
    }

    @Test
    void shouldKeepTransitionTimeWhenOnlyReasonOrMessageChanges() {
        List<Condition> first = Conditions.set(List.of(),
                Condition.of("Provisioned", false, 1, Reason.Provisioning, "creating", T0));
        List<Condition> second = Conditions.set(first,
                Condition.of("Provisioned", false, 2, Reason.QuotaExceeded, "no CPUs left", T1));
        Condition c = Conditions.find(second, "Provisioned").orElseThrow();
        assertEquals("2026-11-29T10:00:00Z", c.lastTransitionTime());
        assertEquals("QuotaExceeded", c.reason());
        assertEquals(2L, c.observedGeneration());
    }

    @Test
    void shouldMoveTransitionTimeWhenStatusFlips() {
        List<Condition> first = Conditions.set(List.of(), Condition.of("Healthy", true, 1, Reason.ProbeSucceeded, "", T0));
        List<Condition> flipped = Conditions.set(first, Condition.of("Healthy", false, 1, Reason.ProbeFailed, "", T1));
        assertEquals("2026-11-29T10:05:00Z", Conditions.find(flipped, "Healthy").orElseThrow().lastTransitionTime());
    }

    @Test
    void shouldReplaceInPlaceAndLeaveOtherTypesAlone() {
        List<Condition> both = Conditions.set(
                Conditions.set(List.of(), Condition.of("Provisioned", true, 1, Reason.Created, "", T0)),
                Condition.of("Healthy", true, 1, Reason.ProbeSucceeded, "", T0));
        List<Condition> out = Conditions.set(both, Condition.of("Provisioned", false, 2, Reason.Replacing, "", T1));
        assertEquals(List.of("Provisioned", "Healthy"), out.stream().map(Condition::type).toList());
        assertEquals(both.get(1), out.get(1));
        assertTrue(Conditions.remove(out, "Healthy").stream().noneMatch(c -> c.type().equals("Healthy")));
    }

    @Test
    void shouldStageConditionsOnStatusWithoutTouchingOtherFields() {
        ProxyStatus s = ProxyStatus.EMPTY.withProviderID("zones/z/instances/n").withIp("10.0.0.7")
                .withCondition(Condition.of("Provisioned", true, 3, Reason.Created, "", T0));
        assertEquals("10.0.0.7", s.ip());
        assertEquals("zones/z/instances/n", s.providerID());
        assertTrue(Conditions.find(s.conditions(), "Provisioned").orElseThrow().isTrue());
        assertTrue(s.withoutCondition("Provisioned").conditions().isEmpty());
    }
}
