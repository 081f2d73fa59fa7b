package com.example.crawl.egress.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;
import tools.jackson.databind.JsonNode;

class JsonLineTest {
    private final CapturedLog log = new CapturedLog(LogFormat.JSON, Level.INFO);

    @Test
    void shouldWriteFixedFieldsFirstWithFormattedMessage() {
        log.logger(CapturedLog.OWN).info("Created instance {} in {}", "p-1", "zone-a");

        JsonNode line = log.onlyJsonLine();
        assertEquals(List.of("ts", "level", "logger", "msg"), List.copyOf(line.propertyNames()));
        assertEquals("2026-11-29T09:12:30.123Z", line.get("ts").stringValue());
        assertEquals("info", line.get("level").stringValue());
        assertEquals(CapturedLog.OWN, line.get("logger").stringValue());
        assertEquals("Created instance p-1 in zone-a", line.get("msg").stringValue());
    }

    @Test
    void shouldKeepMillisecondsInTimestampWhenTheyAreZero() {
        Clock onTheSecond = Clock.fixed(Instant.parse("2026-01-02T03:04:05Z"), ZoneOffset.UTC);
        CapturedLog exact = new CapturedLog(LogFormat.JSON, Level.INFO, onTheSecond);

        exact.logger(CapturedLog.OWN).warn("Lease lost");

        JsonNode line = exact.onlyJsonLine();
        assertEquals("2026-01-02T03:04:05.000Z", line.get("ts").stringValue());
        assertEquals("warn", line.get("level").stringValue());
    }

    @Test
    void shouldEscapeQuotesBackslashesControlAndNonAsciiCharacters() {
        String nasty = "say \"hi\" C:\\tmp\n\r\t\b\f\u0000\u0001\u001f\u007f é ✓ 😀 \u2028";

        log.logger(CapturedLog.OWN).info(nasty);

        String raw = log.output();
        assertTrue(raw.chars().allMatch(c -> c < 0x7f), "line must be pure ASCII: " + raw);
        assertEquals(nasty, log.onlyJsonLine().get("msg").stringValue());
    }

    @Test
    void shouldReplaceUnpairedSurrogatesWithReplacementCharacter() {
        log.logger(CapturedLog.OWN).info("a\uD800b\uDC00c\uD83D\uDE00");

        assertEquals("a\uFFFDb\uFFFDc\uD83D\uDE00", log.onlyJsonLine().get("msg").stringValue());
    }

    @Test
    void shouldWriteMdcEntriesAsStringFieldsSortedByKey() {
        log.mdc.put("namespace", "crawl");
        log.mdc.put("name", "proxy-1");
        log.mdc.put("attempt", "3");

        log.logger(CapturedLog.OWN).info("Reconciled");

        JsonNode line = log.onlyJsonLine();
        assertEquals(
                List.of("ts", "level", "logger", "msg", "attempt", "name", "namespace"),
                List.copyOf(line.propertyNames()));
        assertEquals("3", line.get("attempt").stringValue(), "MDC values stay strings");
        assertEquals("proxy-1", line.get("name").stringValue());
    }

    @Test
    void shouldWriteKeyValuePairsWithJsonTypesAfterMdc() {
        log.mdc.put("reconcileID", "r-7");

        log.logger(CapturedLog.OWN).atInfo()
                .addKeyValue("attempt", 3)
                .addKeyValue("ratio", 0.5)
                .addKeyValue("big", new BigDecimal("1E+3"))
                .addKeyValue("ready", true)
                .addKeyValue("instant", CapturedLog.NOW)
                .addKeyValue("nan", Double.NaN)
                .addKeyValue("none", (Object) null)
                .log("Probed");

        JsonNode line = log.onlyJsonLine();
        assertEquals(
                List.of("ts", "level", "logger", "msg", "reconcileID", "attempt", "ratio", "big",
                        "ready", "instant", "nan", "none"),
                List.copyOf(line.propertyNames()));
        assertEquals(3, line.get("attempt").intValue());
        assertEquals(0.5, line.get("ratio").doubleValue());
        assertEquals(1000.0, line.get("big").doubleValue());
        assertTrue(line.get("ready").booleanValue());
        assertEquals("2026-11-29T09:12:30.123Z", line.get("instant").stringValue());
        assertEquals("NaN", line.get("nan").stringValue());
        assertTrue(line.get("none").isNull());
        assertEquals("Probed", line.get("msg").stringValue());
    }

    @Test
    void shouldPrefixCollidingKeysWithUnderscoresInsteadOfDuplicatingThem() {
        log.mdc.put("msg", "from mdc");
        log.mdc.put("name", "mdc-name");

        log.logger(CapturedLog.OWN).atInfo()
                .addKeyValue("level", "kv-level")
                .addKeyValue("msg", "from kv")
                .addKeyValue("name", "kv-name")
                .addKeyValue("stack", "kv-stack")
                .setCause(new IllegalStateException("boom"))
                .log("Real message");

        JsonNode line = log.onlyJsonLine(); // the strict parser rejects duplicate keys
        assertEquals("Real message", line.get("msg").stringValue());
        assertEquals("info", line.get("level").stringValue());
        assertEquals("from mdc", line.get("_msg").stringValue());
        assertEquals("from kv", line.get("__msg").stringValue());
        assertEquals("kv-level", line.get("_level").stringValue());
        assertEquals("mdc-name", line.get("name").stringValue());
        assertEquals("kv-name", line.get("_name").stringValue());
        assertEquals("kv-stack", line.get("_stack").stringValue());
    }

    @Test
    void shouldLetAKeyValueNamedErrorStandWhenNoThrowableIsGiven() {
        log.logger(CapturedLog.OWN).atWarn().addKeyValue("error", "quota exceeded").log("Reconcile failed");

        JsonNode line = log.onlyJsonLine();
        assertEquals("quota exceeded", line.get("error").stringValue());
        assertEquals(null, line.get("stack"));
    }

    @Test
    void shouldWriteErrorAndStackLastWhenThrowableIsGiven() {
        Exception failure = new IllegalStateException("boom", new java.io.IOException("disk"));

        log.logger(CapturedLog.OWN).atError().addKeyValue("name", "p-1").setCause(failure)
                .log("Reconcile failed");

        JsonNode line = log.onlyJsonLine();
        List<String> keys = List.copyOf(line.propertyNames());
        assertEquals(List.of("error", "stack"), keys.subList(keys.size() - 2, keys.size()));
        assertEquals("java.lang.IllegalStateException: boom", line.get("error").stringValue());
        String stack = line.get("stack").stringValue();
        assertTrue(stack.startsWith("java.lang.IllegalStateException: boom\n\tat "), stack);
        assertTrue(stack.contains("Caused by: java.io.IOException: disk"), stack);
        assertTrue(stack.contains("shouldWriteErrorAndStackLastWhenThrowableIsGiven"), stack);
    }

    @Test
    void shouldTakeTrailingThrowableArgumentAsCauseInBothApis() {
        Exception failure = new IllegalArgumentException("bad");

        log.logger(CapturedLog.OWN).warn("Rejected {}", "p-1", failure);
        log.logger(CapturedLog.OWN).atWarn().log("Rejected {}", "p-2", failure);

        for (JsonNode line : log.jsonLines()) {
            assertTrue(line.get("msg").stringValue().matches("Rejected p-[12]"), line.toString());
            assertEquals(
                    "java.lang.IllegalArgumentException: bad", line.get("error").stringValue());
        }
        assertEquals(2, log.lines().size());
    }

    @Test
    void shouldStillWriteLineWhenAValueToStringThrows() {
        Object broken = new Object() {
            @Override
            public String toString() {
                throw new IllegalStateException("no");
            }
        };

        log.logger(CapturedLog.OWN).atInfo().addKeyValue("v", broken).log("Value");

        JsonNode line = log.onlyJsonLine();
        assertEquals(
                "[toString failed: java.lang.IllegalStateException]", line.get("v").stringValue());
        assertEquals("Value", line.get("msg").stringValue());
        assertEquals("", log.fallbackOutput());
    }
}
