package com.example.crawl.egress.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.logging.Handler;
import java.util.logging.LogManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.bridge.SLF4JBridgeHandler;
import org.slf4j.event.Level;

/** Goes through the process-wide provider, so it restores the defaults after each test. */
class LogSetupTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final Clock clock = Clock.fixed(CapturedLog.NOW, ZoneOffset.UTC);

    @AfterEach
    void restoreDefaults() {
        LogSetup.configure(LogFormat.JSON, Level.INFO);
    }

    @Test
    void shouldRejectUnknownLevelNameListingTheAcceptedOnes() {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> LogSetup.parseLevel("verbose"));

        assertEquals(
                "unknown log level \"verbose\": expected one of error, warn, info, debug, trace",
                e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> LogSetup.parseLevel(null));
    }

    @Test
    void shouldParseLevelNamesInAnyCase() {
        assertEquals(Level.DEBUG, LogSetup.parseLevel("debug"));
        assertEquals(Level.WARN, LogSetup.parseLevel("WARN"));
    }

    @Test
    void shouldParseFormatNamesAndRejectUnknownOnes() {
        assertEquals(LogFormat.TEXT, LogFormat.parse("text"));
        assertEquals(LogFormat.JSON, LogFormat.parse("JSON"));
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> LogFormat.parse("xml"));
        assertEquals("unknown log format \"xml\": expected one of json, text", e.getMessage());
    }

    @Test
    void shouldApplyConfigurationToLoggersCreatedBeforeIt() {
        Logger early = LoggerFactory.getLogger("com.example.crawl.egress.Early");

        LogSetup.configure(LogFormat.TEXT, Level.DEBUG, CapturedLog.utf8(out), clock);
        early.debug("Configured late");

        assertEquals(
                "2026-11-29T09:12:30.123Z DEBUG com.example.crawl.egress.Early  Configured late\n",
                out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void shouldRouteJavaUtilLoggingThroughTheSameOutput() {
        LogSetup.configure(LogFormat.TEXT, Level.INFO, CapturedLog.utf8(out), clock);

        java.util.logging.Logger.getLogger("com.example.crawl.egress.Jul").info("Via JUL");
        java.util.logging.Logger.getLogger("some.library").info("Chatty library");
        java.util.logging.Logger.getLogger("some.library").fine("Below threshold");

        assertEquals(
                "2026-11-29T09:12:30.123Z INFO  com.example.crawl.egress.Jul  Via JUL\n",
                out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void shouldReplaceTheJulBridgeRatherThanAddOneOnEachCall() {
        LogSetup.configure(LogFormat.JSON, Level.INFO, CapturedLog.utf8(out), clock);
        LogSetup.configure(LogFormat.JSON, Level.DEBUG, CapturedLog.utf8(out), clock);

        java.util.logging.Logger root = LogManager.getLogManager().getLogger("");
        Handler[] handlers = root.getHandlers();
        assertEquals(1, handlers.length, "the console handler is gone and the bridge is there once");
        assertInstanceOf(SLF4JBridgeHandler.class, handlers[0]);
        assertEquals(java.util.logging.Level.FINER, root.getLevel());
    }

    @ParameterizedTest(name = "threshold {0}: JUL root at {1}")
    @CsvSource({"ERROR, SEVERE", "WARN, WARNING", "INFO, CONFIG", "DEBUG, FINER", "TRACE, ALL"})
    void shouldLetJulBuildOnlyRecordsTheThresholdKeeps(Level threshold, String julLevel) {
        LogSetup.configure(LogFormat.JSON, threshold, CapturedLog.utf8(out), clock);

        assertEquals(java.util.logging.Level.parse(julLevel), LogManager.getLogManager().getLogger("").getLevel());
    }
}
