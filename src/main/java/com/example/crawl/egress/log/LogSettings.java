package com.example.crawl.egress.log;

import java.io.PrintStream;
import java.time.Clock;
import java.util.Objects;
import org.slf4j.event.Level;

/**
 * The logging configuration in force: immutable, swapped as a whole by {@link LogSink#configure}.
 *
 * @param format line format
 * @param threshold global level: events below it are dropped
 * @param out where lines go; written only under the sink's lock
 * @param clock source of the {@code ts} field
 */
record LogSettings(LogFormat format, Level threshold, PrintStream out, Clock clock) {

    /** Prefix of the loggers that belong to this operator; every other logger is third-party. */
    static final String OWN_PREFIX = "com.example.crawl.egress";

    LogSettings {
        Objects.requireNonNull(format, "format");
        Objects.requireNonNull(threshold, "threshold");
        Objects.requireNonNull(out, "out");
        Objects.requireNonNull(clock, "clock");
    }

    /** JSON at info on {@code System.out} with the UTC system clock: in force until configured. */
    static LogSettings defaults() {
        return new LogSettings(LogFormat.JSON, Level.INFO, System.out, Clock.systemUTC());
    }

    /**
     * Whether an event at {@code level} from a logger passes the threshold. Own loggers follow the
     * threshold. Third-party loggers follow it too, except that at the {@code info} threshold they
     * need {@code warn}: libraries are chatty at info, and their debug/trace detail is wanted only
     * when the threshold is debug or trace, where they follow it like our own.
     */
    boolean enabled(boolean ownLogger, Level level) {
        Level effective = !ownLogger && threshold == Level.INFO ? Level.WARN : threshold;
        return level.toInt() >= effective.toInt();
    }

    /** Whether {@code loggerName} is one of ours ({@value #OWN_PREFIX} or below it). */
    static boolean isOwn(String loggerName) {
        return loggerName.equals(OWN_PREFIX) || loggerName.startsWith(OWN_PREFIX + ".");
    }
}
