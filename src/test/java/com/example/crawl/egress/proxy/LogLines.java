package com.example.crawl.egress.proxy;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.example.crawl.egress.log.LogFormat;
import com.example.crawl.egress.log.LogSetup;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;
import org.slf4j.event.Level;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The process's log output, captured in memory as JSON lines, so that a test can wait for a line
 * to be written instead of sleeping or polling. Logging is process-wide: {@link #install()} points
 * it here, {@link #restore()} gives the default back. Thread-safe.
 */
public final class LogLines extends OutputStream {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition written = lock.newCondition();
    private final ByteArrayOutputStream partial = new ByteArrayOutputStream(); // guarded by lock
    private final List<String> lines = new ArrayList<>(); // guarded by lock

    private LogLines() {
    }

    public static LogLines install() {
        return install(Level.INFO);
    }

    /** Captures every line at {@code level} and above, of every logger (libraries too). */
    public static LogLines install(Level level) {
        LogLines captured = new LogLines();
        LogSetup.configure(LogFormat.JSON, level, new PrintStream(captured, true, UTF_8), Clock.systemUTC());
        return captured;
    }

    public static void restore() {
        LogSetup.configure(LogFormat.JSON, Level.INFO);
    }

    @Override
    public void write(int b) {
        lock.lock();
        try {
            if (b == '\n') {
                lines.add(partial.toString(UTF_8));
                partial.reset();
                written.signalAll();
            } else {
                partial.write(b);
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void write(byte[] b, int off, int len) {
        lock.lock();
        try {
            for (int i = off; i < off + len; i++) {
                write(b[i]);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Every complete line written so far, as written. */
    public List<String> all() {
        lock.lock();
        try {
            return List.copyOf(lines);
        } finally {
            lock.unlock();
        }
    }

    /** The lines written so far with this {@code msg} that match, in order. */
    public List<JsonNode> lines(String msg, Predicate<JsonNode> match) {
        lock.lock();
        try {
            return lines.stream().map(JSON::readTree)
                    .filter(line -> msg.equals(field(line, "msg")) && match.test(line)).toList();
        } finally {
            lock.unlock();
        }
    }

    /** Waits for a line with this {@code msg} that matches; fails the test if none comes in time. */
    public JsonNode await(String msg, Predicate<JsonNode> match, Duration timeout) throws InterruptedException {
        long left = timeout.toNanos();
        lock.lock();
        try {
            List<JsonNode> found = lines(msg, match);
            while (found.isEmpty()) {
                if (left <= 0) {
                    throw new AssertionError("no \"" + msg + "\" line within " + timeout + "; got: " + lines);
                }
                left = written.awaitNanos(left);
                found = lines(msg, match);
            }
            return found.getFirst();
        } finally {
            lock.unlock();
        }
    }

    /** A line's key-value field as text; empty when absent. */
    public static String field(JsonNode line, String key) {
        return line.path(key).asString("");
    }

    public static Predicate<JsonNode> withIdentity(String identity) {
        return line -> identity.equals(field(line, "identity"));
    }
}
