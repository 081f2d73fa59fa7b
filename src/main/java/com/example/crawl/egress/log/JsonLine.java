package com.example.crawl.egress.log;

import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import org.slf4j.event.KeyValuePair;

/**
 * Renders an event as one JSON object and a newline: {@code ts}, {@code level}, {@code logger},
 * {@code msg}, then the MDC entries as strings, then the key-value pairs, then {@code error} and
 * {@code stack} when there is a throwable.
 *
 * <p>Contracts: the output is valid JSON (RFC 8259) on a single line and pure ASCII, whatever the
 * input: every character outside printable ASCII is written as a backslash-u escape with four hex digits
 * (so the line survives any stream encoding) and an unpaired surrogate becomes U+FFFD. No key
 * appears twice: {@code ts, level, logger, msg} are reserved, and so are {@code error, stack} when
 * the event carries a throwable (without one, a key-value {@code error} is the plain way to say
 * what an expected failure was); an MDC or
 * key-value key that is already taken gets {@code _} prefixed until it is free (MDC {@code msg}
 * becomes {@code _msg}; a second pair named {@code n} becomes {@code _n}). Key-value numbers and
 * booleans are JSON numbers and booleans, null is {@code null}, anything else is its
 * {@code toString()}. Stateless and thread-safe.
 */
final class JsonLine {
    private static final Set<String> RESERVED = Set.of("ts", "level", "logger", "msg");
    private static final Set<String> THROWABLE_KEYS = Set.of("error", "stack");
    private static final Pattern JSON_NUMBER =
            Pattern.compile("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?");
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private JsonLine() {
    }

    static String render(LogEvent event, String timestamp) {
        StringBuilder b = new StringBuilder(256);
        b.append("{\"ts\":");
        string(b, timestamp);
        b.append(",\"level\":");
        string(b, event.level().name().toLowerCase(Locale.ROOT));
        b.append(",\"logger\":");
        string(b, event.logger());
        b.append(",\"msg\":");
        string(b, event.message());
        Set<String> used = new HashSet<>(RESERVED);
        if (event.thrown() != null) {
            used.addAll(THROWABLE_KEYS);
        }
        event.mdc().forEach((key, value) -> field(b, used, key, value));
        for (KeyValuePair pair : event.keyValues()) {
            field(b, used, pair.key, pair.value);
        }
        if (event.thrown() != null) {
            b.append(",\"error\":");
            string(b, event.error());
            b.append(",\"stack\":");
            string(b, event.stack());
        }
        return b.append("}\n").toString();
    }

    private static void field(StringBuilder b, Set<String> used, String key, Object value) {
        String unique = String.valueOf(key);
        while (!used.add(unique)) {
            unique = "_" + unique;
        }
        b.append(',');
        string(b, unique);
        b.append(':');
        value(b, value);
    }

    private static void value(StringBuilder b, Object value) {
        if (value == null) {
            b.append("null");
        } else if (value instanceof Boolean flag) {
            b.append(flag.booleanValue());
        } else if (value instanceof Number number) {
            number(b, LogEvent.text(number));
        } else {
            string(b, LogEvent.text(value));
        }
    }

    /** Only JSON number text goes in bare: NaN, infinities and odd subclasses are quoted. */
    private static void number(StringBuilder b, String text) {
        if (JSON_NUMBER.matcher(text).matches()) {
            b.append(text);
        } else {
            string(b, text);
        }
    }

    /** Appends {@code s} as a quoted JSON string, escaped as the class contract says. */
    private static void string(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> i = other(b, s, i);
            }
        }
        b.append('"');
    }

    /** Appends the character at {@code i}; returns the index of the last character consumed. */
    private static int other(StringBuilder b, String s, int i) {
        char c = s.charAt(i);
        if (c >= 0x20 && c < 0x7f) {
            b.append(c);
        } else if (Character.isHighSurrogate(c)
                && i + 1 < s.length()
                && Character.isLowSurrogate(s.charAt(i + 1))) {
            unicode(b, c);
            unicode(b, s.charAt(++i));
        } else {
            unicode(b, Character.isSurrogate(c) ? '\ufffd' : c);
        }
        return i;
    }

    private static void unicode(StringBuilder b, char c) {
        b.append("\\u")
                .append(HEX[(c >> 12) & 0xf])
                .append(HEX[(c >> 8) & 0xf])
                .append(HEX[(c >> 4) & 0xf])
                .append(HEX[c & 0xf]);
    }
}
