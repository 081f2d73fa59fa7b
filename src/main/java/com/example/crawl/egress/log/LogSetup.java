package com.example.crawl.egress.log;

import java.io.PrintStream;
import java.time.Clock;
import java.util.logging.LogManager;
import org.slf4j.bridge.SLF4JBridgeHandler;
import org.slf4j.event.Level;

/**
 * The entry point {@code Main} calls once, early: sets the format and level of every SLF4J
 * logger in the process (including ones created before the call) and routes
 * {@code java.util.logging} to them through slf4j's {@link SLF4JBridgeHandler}.
 *
 * <p>Until it is called, logging is JSON at {@code info} on {@code System.out}. Level rule: events
 * below the threshold are dropped; loggers outside {@code com.example.crawl.egress} (fabric8,
 * gRPC, Google, sshj, Netty, OpenTelemetry, the JDK...) need {@code warn} when the threshold is
 * {@code info}, and follow the threshold like our own loggers when it is {@code error},
 * {@code warn}, {@code debug} or {@code trace}.
 *
 * <p>JUL levels become SLF4J levels as {@code SLF4JBridgeHandler} maps them: SEVERE error, WARNING
 * warn, INFO and CONFIG info, FINE and FINER debug, FINEST trace. The JUL root logger's level is
 * set to the lowest JUL level that maps to the threshold, so that JUL does not even build records
 * the threshold would drop.
 *
 * <p>Thread-safe; may be called again (tests, a later reconfiguration) and the last call wins.
 */
public final class LogSetup {
    private LogSetup() {
    }

    /** Writes to {@code System.out}, timestamps from the UTC system clock. */
    public static void configure(LogFormat format, Level threshold) {
        configure(format, threshold, System.out, Clock.systemUTC());
    }

    /**
     * Writes lines to {@code out}, taking timestamps from {@code clock}, and makes an
     * {@link SLF4JBridgeHandler} the only handler of the JUL root logger (its console handler, and
     * the bridge of an earlier call, are removed, so no record is printed twice).
     *
     * @throws NullPointerException if an argument is null
     */
    public static void configure(LogFormat format, Level threshold, PrintStream out, Clock clock) {
        LogSink.PROCESS.configure(new LogSettings(format, threshold, out, clock));
        SLF4JBridgeHandler.removeHandlersForRootLogger();
        SLF4JBridgeHandler.install();
        LogManager.getLogManager().getLogger("").setLevel(julThreshold(threshold));
    }

    /** The lowest JUL level that {@code SLF4JBridgeHandler} turns into {@code threshold} or above. */
    static java.util.logging.Level julThreshold(Level threshold) {
        return switch (threshold) {
            case ERROR -> java.util.logging.Level.SEVERE;
            case WARN -> java.util.logging.Level.WARNING;
            case INFO -> java.util.logging.Level.CONFIG;
            case DEBUG -> java.util.logging.Level.FINER;
            case TRACE -> java.util.logging.Level.ALL;
        };
    }

    /**
     * Parses a level name as written in configuration: {@code error}, {@code warn}, {@code info},
     * {@code debug} or {@code trace}, any case.
     *
     * @throws IllegalArgumentException naming the bad value and the accepted ones
     */
    public static Level parseLevel(String name) {
        for (Level level : Level.values()) {
            if (level.name().equalsIgnoreCase(name)) {
                return level;
            }
        }
        throw new IllegalArgumentException("unknown log level \"" + name
                + "\": expected one of error, warn, info, debug, trace");
    }
}
