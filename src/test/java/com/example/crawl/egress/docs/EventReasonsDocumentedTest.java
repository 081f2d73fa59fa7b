package com.example.crawl.egress.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.example.crawl.egress.client.ClientEventReason;
import com.example.crawl.egress.pool.PoolEventReason;
import com.example.crawl.egress.proxy.ProxyEventReason;
import com.example.crawl.egress.replication.LeaseStateEventReason;
import com.example.crawl.egress.runtime.EventReason;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/operations.md}'s table of Event reasons is exactly the reasons both controllers own,
 * each with the type and action an Event of it carries: what {@code kubectl get events} shows is
 * what the page says.
 */
class EventReasonsDocumentedTest {

    private static final Path PAGE = Path.of("docs/operations.md");
    /** A row of the reasons table: {@code | `Reason` | Type | `Action` | ...}. */
    private static final Pattern ROW = Pattern.compile("^\\| `([A-Za-z]+)` \\| (Normal|Warning) \\| `([A-Za-z]+)` \\|.*");

    @Test
    void shouldDocumentEveryEventReasonWithItsTypeAndAction() throws IOException {
        Map<String, String> inCode = new TreeMap<>();
        Stream.<EventReason[]>of(ProxyEventReason.values(), PoolEventReason.values(), LeaseStateEventReason.values(),
                ClientEventReason.values())
                .flatMap(Stream::of).forEach(r -> inCode.put(r.name(), r.type() + " " + r.action()));

        assertEquals(inCode, documented(Files.readString(PAGE)), "the Event reasons of " + PAGE);
    }

    @Test
    void shouldReadTheTableRows() {
        assertEquals(Map.of("InstanceCreated", "Normal Create"), documented("""
                | reason | type | action | emitted when |
                |---|---|---|---|
                | `InstanceCreated` | Normal | `Create` | A provider created an instance. |
                | `Ready` | condition, not an Event |
                """));
    }

    private static Map<String, String> documented(String page) {
        Map<String, String> out = new TreeMap<>();
        for (String line : page.split("\n")) {
            Matcher m = ROW.matcher(line);
            if (m.matches()) {
                out.put(m.group(1), m.group(2) + " " + m.group(3));
            }
        }
        return out;
    }
}
