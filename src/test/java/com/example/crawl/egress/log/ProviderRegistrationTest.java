package com.example.crawl.egress.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import tools.jackson.databind.JsonNode;

class ProviderRegistrationTest {

    /** Runs in a fresh JVM: SLF4J initialises there for the first time. */
    static final class Probe {
        public static void main(String[] args) {
            LoggerFactory.getLogger("com.example.crawl.egress.Probe").info("Probe started");
        }
    }

    @Test
    void shouldBindOurProviderThroughServiceLoader() {
        assertInstanceOf(EgressLogger.class, LoggerFactory.getLogger(getClass()));
        assertInstanceOf(EgressLoggerFactory.class, LoggerFactory.getILoggerFactory());
        assertInstanceOf(ThreadMdc.class, MDC.getMDCAdapter());
    }

    @Test
    void shouldLogInAFreshJvmWithoutAnySlf4jWarning(@TempDir Path dir)
            throws IOException, InterruptedException {
        Path out = dir.resolve("out");
        Path err = dir.resolve("err");
        Process probe = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp", System.getProperty("java.class.path"),
                        Probe.class.getName())
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();

        assertTrue(probe.waitFor(2, TimeUnit.MINUTES), "probe JVM did not finish");

        String stderr = Files.readString(err);
        assertEquals(0, probe.exitValue(), stderr);
        assertFalse(stderr.contains("SLF4J"), stderr);
        JsonNode line = CapturedLog.JSON.readTree(Files.readString(out));
        assertEquals("Probe started", line.get("msg").stringValue());
        assertEquals("com.example.crawl.egress.Probe", line.get("logger").stringValue());
    }
}
