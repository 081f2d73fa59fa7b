package com.example.crawl.egress.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PhaseTest {

    private static final Instant NOW = Instant.parse("2026-11-29T10:00:00Z");

    private static List<Condition> conditions(Condition... cs) {
        List<Condition> out = new ArrayList<>();
        for (Condition c : cs) {
            out = new ArrayList<>(Conditions.set(out, c));
        }
        return out;
    }

    private static Condition provisioned(boolean status, Reason reason) {
        return Condition.of(Condition.PROVISIONED, status, 1, reason, "", NOW);
    }

    private static Condition healthy(boolean status) {
        return Condition.of(Condition.HEALTHY, status, 1, status ? Reason.ProbeSucceeded : Reason.ProbeFailed, "", NOW);
    }

    @Test
    void shouldBePendingBeforeAnythingHappened() {
        assertEquals(Phase.Pending, Phase.of(false, List.of()));
    }

    @Test
    void shouldBeDeletingWhateverTheConditionsSay() {
        assertEquals(Phase.Deleting, Phase.of(true, conditions(provisioned(true, Reason.Created), healthy(true))));
    }

    @Test
    void shouldBeProvisioningUntilTheFirstVerdict() {
        assertEquals(Phase.Provisioning, Phase.of(false, conditions(provisioned(false, Reason.Provisioning))));
        assertEquals(Phase.Provisioning, Phase.of(false, conditions(provisioned(true, Reason.Created))));
    }

    @Test
    void shouldFollowTheHealthVerdictOnceProvisioned() {
        assertEquals(Phase.Ready, Phase.of(false, conditions(provisioned(true, Reason.Created), healthy(true))));
        assertEquals(Phase.Unhealthy, Phase.of(false, conditions(provisioned(true, Reason.Created), healthy(false))));
    }

    @Test
    void shouldFailOnlyOnPermanentErrorsAndInvalidSpecs() {
        assertEquals(Phase.Failed, Phase.of(false, conditions(provisioned(false, Reason.PermanentError))));
        assertEquals(Phase.Failed, Phase.of(false, conditions(provisioned(false, Reason.InvalidSpec))));
        assertEquals(Phase.Failed, Phase.of(false, conditions(provisioned(false, Reason.UnknownProvider))));
        assertEquals(Phase.Pending, Phase.of(false, conditions(provisioned(false, Reason.QuotaExceeded))));
        assertEquals(Phase.Pending, Phase.of(false, conditions(provisioned(false, Reason.CloudInitError))));
    }

    @Test
    void shouldNotCallAStaleHealthVerdictReadyWhileReplacing() {
        assertEquals(Phase.Provisioning,
                Phase.of(false, conditions(healthy(true), provisioned(false, Reason.Replacing))));
    }
}
