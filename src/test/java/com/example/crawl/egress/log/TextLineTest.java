package com.example.crawl.egress.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;

class TextLineTest {
    private final CapturedLog log = new CapturedLog(LogFormat.TEXT, Level.INFO);

    @Test
    void shouldWriteTimestampPaddedLevelLoggerMessageThenMdcThenPairs() {
        log.mdc.put("namespace", "crawl");

        log.logger(CapturedLog.OWN).atInfo()
                .addKeyValue("name", "proxy-1")
                .addKeyValue("note", "value with spaces")
                .log("Created instance");

        assertEquals(
                "2026-11-29T09:12:30.123Z INFO  com.example.crawl.egress.Reconciler"
                        + "  Created instance"
                        + "  namespace=crawl name=proxy-1 note=\"value with spaces\"\n",
                log.output());
    }

    @Test
    void shouldAlignLevelsToOneWidth() {
        log.logger(CapturedLog.OWN).error("e");
        log.logger(CapturedLog.OWN).warn("w");

        assertEquals(
                List.of(
                        "2026-11-29T09:12:30.123Z ERROR com.example.crawl.egress.Reconciler  e",
                        "2026-11-29T09:12:30.123Z WARN  com.example.crawl.egress.Reconciler  w"),
                log.lines());
    }

    @Test
    void shouldWriteStackTraceOnTheFollowingLines() {
        log.logger(CapturedLog.OWN).error("Reconcile failed", new IllegalStateException("boom"));

        List<String> lines = log.lines();
        assertEquals(
                "2026-11-29T09:12:30.123Z ERROR com.example.crawl.egress.Reconciler"
                        + "  Reconcile failed",
                lines.get(0));
        assertEquals("java.lang.IllegalStateException: boom", lines.get(1));
        assertTrue(lines.get(2).startsWith("\tat "), lines.get(2));
    }

    @Test
    void shouldEscapeLineBreaksAndQuotesSoOneEventStaysOneLine() {
        log.logger(CapturedLog.OWN).atWarn()
                .addKeyValue("quote", "say \"hi\" \\ there")
                .addKeyValue("empty", "")
                .addKeyValue("eq", "a=b")
                .addKeyValue("bell", "\u0007")
                .log("first\nINFO forged\r\tline");

        assertEquals(
                List.of("2026-11-29T09:12:30.123Z WARN  com.example.crawl.egress.Reconciler"
                        + "  first\\nINFO forged\\r\\tline"
                        + "  quote=\"say \\\"hi\\\" \\\\ there\" empty=\"\" eq=\"a=b\""
                        + " bell=\"\\u0007\""),
                log.lines());
    }

    @Test
    void shouldEscapeLineBreaksInExceptionMessagesSoAStackTraceCannotForgeALine() {
        String forged = "boom\n2026-11-29T09:12:30.123Z INFO  com.example.crawl.egress.Reconciler  forged";
        Exception cause = new IllegalArgumentException("bad\r\ninput\u001b[31m");

        log.logger(CapturedLog.OWN).error("Reconcile failed", new IllegalStateException(forged, cause));

        List<String> lines = log.lines();
        assertEquals(1, lines.stream().filter(l -> l.startsWith("2026-")).count(), log.output());
        assertEquals("java.lang.IllegalStateException: boom\\n2026-11-29T09:12:30.123Z INFO  "
                + "com.example.crawl.egress.Reconciler  forged", lines.get(1));
        assertTrue(lines.get(2).startsWith("\tat "), lines.get(2));
        assertTrue(lines.contains("Caused by: java.lang.IllegalArgumentException: bad\\r\\ninput\\u001b[31m"),
                log.output());
        assertTrue(lines.stream().anyMatch(l -> l.matches("\t\\.\\.\\. \\d+ more")), "the JDK's layout is kept");
    }

    @Test
    void shouldKeepAStackTraceOnePhysicalLinePerPrintedLine() {
        Exception e = new IllegalStateException("plain");

        log.logger(CapturedLog.OWN).error("Reconcile failed", e);

        assertEquals(1 + 1 + e.getStackTrace().length, log.lines().size(), log.output());
    }
}
