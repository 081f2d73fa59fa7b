package com.example.crawl.egress.log;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.List;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.event.Level;
import tools.jackson.databind.JsonNode;

/**
 * {@code java.util.logging} records reach our lines through slf4j's {@code SLF4JBridgeHandler},
 * as {@link LogSetup#configure} installs it. The bridge finds loggers through SLF4J's process-wide
 * binding, so these tests configure the process's sink and restore the defaults after each test;
 * lines of other loggers (a library thread of an earlier test) are ignored.
 */
class JulRoutingTest {
    private static final String LIBRARY = "jdk.internal.httpclient.test";

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    @AfterEach
    void restoreDefaults() {
        LogSetup.configure(LogFormat.JSON, Level.INFO);
    }

    @ParameterizedTest(name = "JUL {0} is {1}")
    @CsvSource({
        "SEVERE, error",
        "WARNING, warn",
        "INFO, info",
        "CONFIG, info",
        "FINE, debug",
        "FINER, debug",
        "FINEST, trace",
    })
    void shouldMapJulLevelsAsSlf4jsBridgeDoes(String julLevel, String expected) {
        configure(Level.TRACE);

        Logger.getLogger(LIBRARY).log(java.util.logging.Level.parse(julLevel), "Event");

        assertEquals(expected, onlyLine().get("level").stringValue());
    }

    @Test
    void shouldForwardFormattedMessageLoggerNameAndThrown() {
        configure(Level.INFO);
        LogRecord record = new LogRecord(java.util.logging.Level.WARNING, "Connect to {0} failed");
        record.setLoggerName(LIBRARY);
        record.setParameters(new Object[] {"10.0.0.1:443"});
        record.setThrown(new java.net.ConnectException("refused"));

        Logger.getLogger(LIBRARY).log(record);

        JsonNode line = onlyLine();
        assertEquals(LIBRARY, line.get("logger").stringValue());
        assertEquals("Connect to 10.0.0.1:443 failed", line.get("msg").stringValue());
        assertEquals("java.net.ConnectException: refused", line.get("error").stringValue());
    }

    @Test
    void shouldLeaveSlf4jPlaceholdersInJulMessagesAlone() {
        configure(Level.INFO);

        Logger.getLogger("com.example.crawl.egress.Jul").info("literal {} stays");

        assertEquals("literal {} stays", onlyLine().get("msg").stringValue());
    }

    @Test
    void shouldApplyTheThirdPartyRuleToJulLoggers() {
        configure(Level.INFO);

        Logger.getLogger(LIBRARY).info("Chatty");
        Logger.getLogger(LIBRARY).warning("Worth seeing");

        assertEquals("Worth seeing", onlyLine().get("msg").stringValue());
    }

    @Test
    void shouldLetThirdPartyJulDebugThroughAtTheDebugThreshold() {
        configure(Level.DEBUG);

        Logger.getLogger(LIBRARY).finer("Detail");
        Logger.getLogger(LIBRARY).finest("Too fine");

        assertEquals("Detail", onlyLine().get("msg").stringValue());
    }

    @Test
    void shouldPrintARecordOnceWhenConfiguredTwice() {
        configure(Level.INFO);
        configure(Level.INFO);

        Logger.getLogger("com.example.crawl.egress.Jul").info("Once");

        assertEquals("Once", onlyLine().get("msg").stringValue());
    }

    private void configure(Level threshold) {
        LogSetup.configure(LogFormat.JSON, threshold, CapturedLog.utf8(out),
                Clock.fixed(CapturedLog.NOW, ZoneOffset.UTC));
    }

    /** The one line written by a test logger; fails on none or more. */
    private JsonNode onlyLine() {
        List<JsonNode> ours = out.toString(StandardCharsets.UTF_8).lines().map(CapturedLog.JSON::readTree)
                .filter(l -> l.get("logger").stringValue().equals(LIBRARY)
                        || l.get("logger").stringValue().startsWith("com.example.crawl.egress.Jul"))
                .toList();
        assertEquals(1, ours.size(), ours.toString());
        return ours.getFirst();
    }
}
