package com.example.crawl.egress.log;

import java.io.PrintWriter;
import java.io.Writer;
import java.util.Map;
import org.slf4j.event.KeyValuePair;

/**
 * Renders an event for people:
 * {@code 2026-11-29T09:12:30.123Z INFO  logger.Name  msg  key=value key2="value with spaces"},
 * MDC entries before key-value pairs, then the stack trace on the following lines.
 *
 * <p>Contracts: the first line is the whole event except the stack trace; control characters in
 * the message, keys and values are escaped ({@code \n}, {@code \t}, or a backslash-u escape) so
 * that no input can start a line that looks like another event. The stack trace keeps the JDK's
 * layout, one line per {@code println} of {@link Throwable#printStackTrace}, but inside each line
 * control characters other than tab are escaped the same way, so an exception message holding a
 * line break stays on its own line. A value is quoted when it is
 * empty or holds a space, control character, {@code "} or {@code =}; inside quotes {@code "} and
 * {@code \} are backslash-escaped. Stateless and thread-safe.
 */
final class TextLine {
    private TextLine() {
    }

    static String render(LogEvent event, String timestamp) {
        StringBuilder b = new StringBuilder(256);
        b.append(timestamp).append(' ');
        String level = event.level().name();
        b.append(level).append(" ".repeat(6 - level.length()));
        plain(b, event.logger());
        b.append("  ");
        plain(b, event.message());
        String separator = "  ";
        for (Map.Entry<String, String> entry : event.mdc().entrySet()) {
            pair(b.append(separator), entry.getKey(), entry.getValue());
            separator = " ";
        }
        for (KeyValuePair pair : event.keyValues()) {
            pair(b.append(separator), pair.key, pair.value);
            separator = " ";
        }
        b.append('\n');
        if (event.thrown() != null) {
            event.printStack(new StackWriter(b));
        }
        return b.toString();
    }

    /**
     * Appends what {@code printStackTrace} prints to a builder: a real line break for each
     * {@code println}, and everything printed inside a line with its control characters escaped
     * (tabs kept, they indent frames). {@code printStackTrace} prints each line with one
     * {@code println(Object)}, which prints the text and then calls {@link #println()}.
     */
    private static final class StackWriter extends PrintWriter {
        private final StringBuilder target;

        StackWriter(StringBuilder target) {
            super(new Writer() {
                @Override
                public void write(char[] chars, int offset, int length) {
                    for (int i = offset; i < offset + length; i++) {
                        if (chars[i] == '\t') {
                            target.append('\t');
                        } else {
                            control(target, chars[i]);
                        }
                    }
                }

                @Override
                public void flush() {
                }

                @Override
                public void close() {
                }
            });
            this.target = target;
        }

        @Override
        public void println() {
            target.append('\n');
        }
    }

    private static void pair(StringBuilder b, String key, Object value) {
        plain(b, String.valueOf(key));
        b.append('=');
        String text = LogEvent.text(value);
        if (needsQuotes(text)) {
            quoted(b, text);
        } else {
            b.append(text);
        }
    }

    private static boolean needsQuotes(String text) {
        if (text.isEmpty()) {
            return true;
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c <= ' ' || c == '"' || c == '=' || c == 0x7f) {
                return true;
            }
        }
        return false;
    }

    private static void quoted(StringBuilder b, String text) {
        b.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\') {
                b.append('\\');
            }
            control(b, c);
        }
        b.append('"');
    }

    private static void plain(StringBuilder b, String text) {
        for (int i = 0; i < text.length(); i++) {
            control(b, text.charAt(i));
        }
    }

    /** Appends {@code c}, escaped if it is a control character. */
    private static void control(StringBuilder b, char c) {
        switch (c) {
            case '\n' -> b.append("\\n");
            case '\r' -> b.append("\\r");
            case '\t' -> b.append("\\t");
            default -> {
                if (c < 0x20 || c == 0x7f) {
                    b.append(String.format("\\u%04x", (int) c));
                } else {
                    b.append(c);
                }
            }
        }
    }
}
