package com.example.crawl.egress.log;

import java.io.PrintStream;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.event.Level;

/**
 * Where events become lines: filters by level, stamps the time, renders in the configured format
 * and writes the line.
 *
 * <p>Thread-safe. The settings are one immutable {@link LogSettings} behind a volatile reference,
 * read once per event, so {@link #configure} takes effect for every logger at its next event,
 * including loggers created before it. Each line (with its stack trace) is rendered completely
 * and then written by one {@code print} under a lock, so concurrent events never interleave. The
 * lock is a {@link ReentrantLock}, not {@code synchronized}, so a virtual thread blocked on a slow
 * stdout does not pin its carrier on JDK 21.
 *
 * <p>Never throws: if rendering or writing throws, one constant line naming the logger and the
 * failure goes to the fallback stream (stderr in production) and the event is dropped. A
 * {@link PrintStream} does not throw when its stream fails, it only remembers the failure
 * ({@link PrintStream#checkError()}); the sink checks after every line and says so on the
 * fallback stream once per output stream, since every later line fails the same way.
 */
final class LogSink {
    /** The sink of this process, behind the SLF4J provider and configured by {@link LogSetup}. */
    static final LogSink PROCESS = new LogSink(LogSettings.defaults(), System.err);

    private static final DateTimeFormatter TIMESTAMP =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    /** What the fallback stream is told, once per output stream, when that stream fails. */
    static final String OUTPUT_FAILED =
            "Log output failed; log lines are being lost and later failures are not reported";

    private final PrintStream fallback;
    private final ReentrantLock writeLock = new ReentrantLock();
    private PrintStream reportedBroken; // guarded by writeLock
    private volatile LogSettings settings;

    LogSink(LogSettings settings, PrintStream fallback) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.fallback = Objects.requireNonNull(fallback, "fallback");
    }

    /** Replaces the settings; events already being written finish with the old ones. */
    void configure(LogSettings newSettings) {
        settings = Objects.requireNonNull(newSettings, "settings");
    }

    LogSettings settings() {
        return settings;
    }

    /** See {@link LogSettings#enabled} for the rule. */
    boolean enabled(boolean ownLogger, Level level) {
        return settings.enabled(ownLogger, level);
    }

    /** Writes {@code event} as one line, or reports on the fallback stream why it could not. */
    void emit(LogEvent event) {
        LogSettings current = settings;
        try {
            String timestamp = TIMESTAMP.format(current.clock().instant());
            String line = switch (current.format()) {
                case JSON -> JsonLine.render(event, timestamp);
                case TEXT -> TextLine.render(event, timestamp);
            };
            write(current.out(), line);
        } catch (RuntimeException | StackOverflowError e) {
            dropped(event.logger(), e);
        }
    }

    private void write(PrintStream out, String line) {
        writeLock.lock();
        try {
            out.print(line);
            out.flush();
            if (out != reportedBroken && out.checkError()) {
                reportedBroken = out;
                report(OUTPUT_FAILED);
            }
        } finally {
            writeLock.unlock();
        }
    }

    /** The message is left out on purpose: it is what failed, and it may be huge. */
    private void dropped(String logger, Throwable failure) {
        report("Dropped log event logger=" + logger + " error=" + failure.getClass().getName());
    }

    private void report(String line) {
        try {
            fallback.println(line);
        } catch (RuntimeException ignored) {
            // Nowhere left to report to; the caller must still not see an exception.
        }
    }
}
