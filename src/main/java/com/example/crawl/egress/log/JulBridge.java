package com.example.crawl.egress.log;

import java.util.Objects;
import java.util.logging.ErrorManager;
import java.util.logging.Handler;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import java.util.logging.SimpleFormatter;
import org.slf4j.ILoggerFactory;
import org.slf4j.Logger;
import org.slf4j.event.Level;

/**
 * A {@code java.util.logging} handler that forwards every record to the SLF4J logger of the same
 * name (the JDK HttpClient and some libraries log through JUL). The JUL message is formatted with
 * its parameters first, so SLF4J sees a finished message without arguments.
 *
 * <p>Levels map SEVERE to error, WARNING to warn, INFO to info, CONFIG and FINE to debug, and
 * FINER and FINEST to trace. Thread-safe; {@link #publish} never throws.
 */
final class JulBridge extends Handler {
    /** The SLF4J name for records from anonymous JUL loggers, which have no name. */
    static final String ANONYMOUS = "java.util.logging";

    private final ILoggerFactory loggers;
    private final SimpleFormatter messages = new SimpleFormatter();

    JulBridge(ILoggerFactory loggers) {
        this.loggers = loggers;
    }

    /**
     * Makes this bridge the only handler of the JUL root logger, replacing the default console
     * handler and any earlier bridge, and lets through to it only records at or above
     * {@code threshold}. Idempotent for the same threshold.
     */
    static void install(ILoggerFactory loggers, Level threshold) {
        java.util.logging.Logger root = LogManager.getLogManager().getLogger("");
        for (Handler handler : root.getHandlers()) {
            root.removeHandler(handler);
        }
        root.addHandler(new JulBridge(loggers));
        root.setLevel(julLevel(threshold));
    }

    @Override
    public void publish(LogRecord record) {
        try {
            Level level = slf4jLevel(record.getLevel());
            String name = Objects.requireNonNullElse(record.getLoggerName(), ANONYMOUS);
            Logger logger = loggers.getLogger(name);
            if (logger.isEnabledForLevel(level)) {
                String message = messages.formatMessage(record);
                logger.atLevel(level).setCause(record.getThrown()).log(message);
            }
        } catch (RuntimeException e) {
            reportError("Dropped JUL record", e, ErrorManager.WRITE_FAILURE);
        }
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
    }

    static Level slf4jLevel(java.util.logging.Level level) {
        int value = level.intValue();
        if (value >= java.util.logging.Level.SEVERE.intValue()) {
            return Level.ERROR;
        } else if (value >= java.util.logging.Level.WARNING.intValue()) {
            return Level.WARN;
        } else if (value >= java.util.logging.Level.INFO.intValue()) {
            return Level.INFO;
        } else if (value >= java.util.logging.Level.FINE.intValue()) {
            return Level.DEBUG;
        }
        return Level.TRACE;
    }

    static java.util.logging.Level julLevel(Level level) {
        return switch (level) {
            case ERROR -> java.util.logging.Level.SEVERE;
            case WARN -> java.util.logging.Level.WARNING;
            case INFO -> java.util.logging.Level.INFO;
            case DEBUG -> java.util.logging.Level.FINE;
            case TRACE -> java.util.logging.Level.ALL;
        };
    }
}
