package com.example.crawl.egress.log;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.event.Level;
import org.slf4j.helpers.BasicMDCAdapter;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A private sink that writes to memory with a fixed clock, its own MDC and loggers over it: tests
 * that use it share no global state with SLF4J's binding.
 */
final class CapturedLog {
    static final Instant NOW = Instant.parse("2026-11-29T09:12:30.123Z");
    static final String OWN = "com.example.crawl.egress.Reconciler";
    static final String THIRD_PARTY = "io.fabric8.kubernetes.client.informers.SharedIndexInformer";

    /** Rejects duplicate keys, so parsing a line also proves it has none. */
    static final JsonMapper JSON =
            JsonMapper.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

    final BasicMDCAdapter mdc = new BasicMDCAdapter();
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream fallback = new ByteArrayOutputStream();
    final LogSink sink;
    final EgressLoggerFactory loggers;

    CapturedLog(LogFormat format, Level threshold) {
        this(format, threshold, Clock.fixed(NOW, ZoneOffset.UTC));
    }

    CapturedLog(LogFormat format, Level threshold, Clock clock) {
        sink = new LogSink(new LogSettings(format, threshold, utf8(out), clock), utf8(fallback));
        loggers = new EgressLoggerFactory(sink, mdc);
    }

    static PrintStream utf8(ByteArrayOutputStream bytes) {
        return new PrintStream(bytes, false, StandardCharsets.UTF_8);
    }

    Logger logger(String name) {
        return loggers.getLogger(name);
    }

    String output() {
        return out.toString(StandardCharsets.UTF_8);
    }

    String fallbackOutput() {
        return fallback.toString(StandardCharsets.UTF_8);
    }

    List<String> lines() {
        return output().lines().toList();
    }

    List<JsonNode> jsonLines() {
        return lines().stream().map(JSON::readTree).toList();
    }

    /** The output must be exactly one newline-terminated line holding one JSON object. */
    JsonNode onlyJsonLine() {
        String text = output();
        if (!text.endsWith("\n") || text.indexOf('\n') != text.length() - 1) {
            throw new AssertionError("expected exactly one line, got: " + text);
        }
        return JSON.readTree(text);
    }
}
