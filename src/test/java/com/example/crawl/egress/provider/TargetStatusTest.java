package com.example.crawl.egress.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TargetStatusTest {

    @Test
    void shouldKeepItsOwnSortedCopyOfTheDetails() {
        Map<String, String> details = new HashMap<>(Map.of("user", "virt", "capacity", "100G"));

        TargetStatus status = TargetStatus.ready("beelink", details);
        details.put("user", "root");

        assertEquals(List.of("capacity", "user"), List.copyOf(status.details().keySet()));
        assertEquals("virt", status.details().get("user"));
        assertThrows(UnsupportedOperationException.class, () -> status.details().put("x", "y"));
    }

    @Test
    void shouldRequireAReasonWhenNotReady() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TargetStatus.notReady("apiserver", "", "no answer", null));

        assertTrue(e.getMessage().contains("apiserver"), e.getMessage());
    }

    @Test
    void shouldRejectAReasonThatIsNotCamelCase() {
        assertThrows(IllegalArgumentException.class,
                () -> TargetStatus.notReady("beelink", "ssh handshake failed", "", Map.of()));
    }

    @Test
    void shouldTurnMissingTextIntoEmptyStrings() {
        TargetStatus status = TargetStatus.notReady("crawl-prod", "Forbidden", null, null);

        assertEquals(new TargetStatus("crawl-prod", false, "Forbidden", "", Map.of()), status);
    }
}
