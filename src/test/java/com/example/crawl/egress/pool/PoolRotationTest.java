package com.example.crawl.egress.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.example.crawl.egress.api.Rotation;
import io.fabric8.kubernetes.api.model.IntOrString;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** How {@code spec.rotation} is read: surge and unavailability counts, and the replacement rules. */
class PoolRotationTest {

    @Test
    void shouldRoundAPercentageUpForTheSurgeAndDownForTheUnavailable() {
        IntOrString quarter = new IntOrString("25%");

        assertEquals(3, PoolRotation.resolve("spec.rotation.maxSurge", quarter, 10, true));
        assertEquals(2, PoolRotation.resolve("spec.rotation.maxUnavailable", quarter, 10, false));
        assertEquals(2, PoolRotation.resolve("spec.rotation.maxSurge", new IntOrString("20%"), 10, true),
                "an exact share is not rounded");
    }

    @Test
    void shouldReadZeroPercentAsNone() {
        assertEquals(0, PoolRotation.resolve("spec.rotation.maxUnavailable", new IntOrString("0%"), 10, false));
    }

    @Test
    void shouldReadACountWrittenAsAString() {
        assertEquals(2, PoolRotation.resolve("spec.rotation.maxSurge", new IntOrString(" 2 "), 10, true));
    }

    @Test
    void shouldReadMaxAgeIntoItsRule() {
        PoolPlan.Rules rules = PoolRotation.rules(new Rotation("24h", "5m", null, null, null), "crawl", BanCounts.NONE);

        assertEquals(Optional.of(Duration.ofHours(24)), rules.maxAge());
        assertEquals(Optional.of(Duration.ofMinutes(5)), rules.replaceUnhealthyAfter());
        assertEquals(Optional.empty(), rules.banTargets());
    }
}
