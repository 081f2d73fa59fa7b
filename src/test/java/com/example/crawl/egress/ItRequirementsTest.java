package com.example.crawl.egress;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

class ItRequirementsTest {

    @Test
    void shouldLetATestRunWhenTheComponentIsPresent() {
        assertDoesNotThrow(() -> ItRequirements.require("squid", true, "apt-get install squid"));
    }

    @Test
    void shouldSkipLocallyAndFailUnderEgressItRequired() {
        // The same JVM cannot change its environment, so this checks whichever mode it runs in.
        boolean required = "1".equals(System.getenv("EGRESS_IT_REQUIRED"));
        Class<? extends Throwable> expected = required ? AssertionFailedError.class : TestAbortedException.class;

        Throwable t = assertThrows(expected, () -> ItRequirements.require("squid", false, "apt-get install squid"));

        assertTrue(t.getMessage().contains("squid is not installed (apt-get install squid)"), t.getMessage());
    }
}
