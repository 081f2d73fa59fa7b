package com.example.crawl.egress.log;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.slf4j.event.KeyValuePair;
import org.slf4j.event.Level;

/**
 * One event that passed the level filter, before it is given a timestamp and rendered.
 *
 * @param level event level
 * @param logger logger name
 * @param message the message with its {@code {}} placeholders already filled
 * @param mdc copy of the caller's MDC, sorted by key so that lines are stable; values may be null
 * @param keyValues the fluent API's key-value pairs, in the order they were added
 * @param thrown the throwable, or null
 */
record LogEvent(
        Level level,
        String logger,
        String message,
        Map<String, String> mdc,
        List<KeyValuePair> keyValues,
        Throwable thrown) {

    /** Accepts null MDC, pairs and message (SLF4J passes null for "none"); never throws. */
    LogEvent {
        logger = String.valueOf(logger);
        message = Objects.requireNonNullElse(message, "");
        // TreeMap and unmodifiable wrappers, not Map.copyOf/List.copyOf: MDC values may be null.
        mdc = mdc == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(mdc));
        keyValues = keyValues == null
                ? List.of()
                : Collections.unmodifiableList(new ArrayList<>(keyValues));
    }

    /** The throwable's {@code toString()}, or null without one. */
    String error() {
        return thrown == null ? null : text(thrown);
    }

    /** The throwable's stack trace with causes, lines ending in {@code \n}, or null without one. */
    String stack() {
        if (thrown == null) {
            return null;
        }
        StringWriter trace = new StringWriter();
        printStack(new PrintWriter(trace));
        return trace.toString().replace(System.lineSeparator(), "\n");
    }

    /**
     * Prints the throwable's stack trace with causes to {@code writer} and flushes it; a
     * throwable whose printing fails leaves a marker line instead of an exception.
     */
    void printStack(PrintWriter writer) {
        try {
            thrown.printStackTrace(writer);
        } catch (RuntimeException | StackOverflowError e) {
            writer.print("[stack trace failed: " + e.getClass().getName() + "]");
            writer.println();
        }
        writer.flush();
    }

    /**
     * {@code String.valueOf(value)}, except that a failing {@code toString()} yields a marker
     * instead of an exception: a bad value must not cost the whole line.
     */
    static String text(Object value) {
        try {
            return String.valueOf(value);
        } catch (RuntimeException | StackOverflowError e) {
            return "[toString failed: " + e.getClass().getName() + "]";
        }
    }
}
