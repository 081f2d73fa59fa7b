package com.example.crawl.egress.log;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.logging.LogRecord;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;
import tools.jackson.databind.JsonNode;

class JulBridgeTest {
    private final CapturedLog log = new CapturedLog(LogFormat.JSON, Level.TRACE);
    private final JulBridge bridge = new JulBridge(log.loggers);

    @ParameterizedTest(name = "JUL {0} is {1}")
    @CsvSource({
        "SEVERE, error",
        "WARNING, warn",
        "INFO, info",
        "CONFIG, debug",
        "FINE, debug",
        "FINER, trace",
        "FINEST, trace",
    })
    void shouldMapJulLevelsToSlf4jLevels(String julLevel, String expected) {
        bridge.publish(new LogRecord(java.util.logging.Level.parse(julLevel), "Event"));

        assertEquals(expected, log.onlyJsonLine().get("level").stringValue());
    }

    @Test
    void shouldForwardFormattedMessageLoggerNameAndThrown() {
        LogRecord record = new LogRecord(java.util.logging.Level.WARNING, "Connect to {0} failed");
        record.setLoggerName("jdk.internal.httpclient");
        record.setParameters(new Object[] {"10.0.0.1:443"});
        record.setThrown(new java.net.ConnectException("refused"));

        bridge.publish(record);

        JsonNode line = log.onlyJsonLine();
        assertEquals("jdk.internal.httpclient", line.get("logger").stringValue());
        assertEquals("Connect to 10.0.0.1:443 failed", line.get("msg").stringValue());
        assertEquals("java.net.ConnectException: refused", line.get("error").stringValue());
    }

    @Test
    void shouldLeaveSlf4jPlaceholdersInJulMessagesAlone() {
        bridge.publish(new LogRecord(java.util.logging.Level.INFO, "literal {} stays"));

        assertEquals("literal {} stays", log.onlyJsonLine().get("msg").stringValue());
    }

    @Test
    void shouldApplyTheThirdPartyRuleToJulLoggers() {
        CapturedLog atInfo = new CapturedLog(LogFormat.JSON, Level.INFO);
        JulBridge quiet = new JulBridge(atInfo.loggers);
        LogRecord chatty = new LogRecord(java.util.logging.Level.INFO, "Chatty");
        chatty.setLoggerName("jdk.internal.httpclient");
        LogRecord warning = new LogRecord(java.util.logging.Level.WARNING, "Worth seeing");
        warning.setLoggerName("jdk.internal.httpclient");

        quiet.publish(chatty);
        quiet.publish(warning);

        assertEquals("Worth seeing", atInfo.onlyJsonLine().get("msg").stringValue());
    }
}
