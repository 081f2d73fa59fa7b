package com.example.crawl.egress.api;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The durations of a {@link Rotation}, written as Kubernetes writes them: one or more whole
 * numbers each followed by a unit, {@code h}, {@code m}, {@code s} or {@code ms}, e.g.
 * {@code 24h}, {@code 1h30m}, {@code 90s}. The CRD checks the same grammar with {@link #PATTERN}.
 */
public final class Durations {

    /** The grammar, as a regular expression; also the CRD's {@code pattern}. */
    public static final String PATTERN = "^([0-9]{1,9}(ms|h|m|s))+$";
    private static final Pattern WHOLE = Pattern.compile(PATTERN);
    private static final Pattern PART = Pattern.compile("([0-9]+)(ms|h|m|s)");

    private Durations() {
    }

    /**
     * Parses {@code text}.
     *
     * @param field names the field in the message of a refusal, e.g. {@code spec.rotation.maxAge}
     * @throws IllegalArgumentException naming the field and the expected form
     */
    public static Duration parse(String field, String text) {
        if (text == null || !WHOLE.matcher(text).matches()) {
            throw new IllegalArgumentException(field + ": \"" + text
                    + "\" is not a duration such as 90s, 15m, 24h or 1h30m");
        }
        Duration total = Duration.ZERO;
        Matcher m = PART.matcher(text);
        while (m.find()) {
            long n = Long.parseLong(m.group(1));
            total = total.plus(switch (m.group(2)) {
                case "h" -> Duration.ofHours(n);
                case "m" -> Duration.ofMinutes(n);
                case "s" -> Duration.ofSeconds(n);
                default -> Duration.ofMillis(n);
            });
        }
        return total;
    }
}
