package com.example.crawl.egress.log;

import java.util.Locale;

/** The line format written to the log stream. */
public enum LogFormat {
    /** One JSON object per line; the default, for log collectors. */
    JSON,
    /** One human-readable line per event, stack traces on the lines after it. */
    TEXT;

    /**
     * Parses a format name as written in configuration ({@code json} or {@code text}, any case).
     *
     * @throws IllegalArgumentException naming the bad value and the accepted ones
     */
    public static LogFormat parse(String name) {
        for (LogFormat format : values()) {
            if (format.name().equalsIgnoreCase(name)) {
                return format;
            }
        }
        throw new IllegalArgumentException(
                "unknown log format \"" + name + "\": expected one of json, text");
    }

    /** The lowercase name used in configuration. */
    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
