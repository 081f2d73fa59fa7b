package com.example.crawl.egress.log;

import java.util.List;
import org.slf4j.Marker;
import org.slf4j.event.KeyValuePair;
import org.slf4j.event.Level;
import org.slf4j.event.LoggingEvent;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;
import org.slf4j.spi.LoggingEventAware;
import org.slf4j.spi.MDCAdapter;

/**
 * An SLF4J logger that hands events to a {@link LogSink}. Markers are ignored.
 *
 * <p>Thread-safe and cheap to call when disabled: the {@code is*Enabled} checks read the sink's
 * current settings, so a logger created before configuration obeys it. Implements
 * {@link LoggingEventAware} so that the fluent API's key-value pairs reach the line as fields
 * instead of being pasted into the message.
 */
final class EgressLogger extends LegacyAbstractLogger implements LoggingEventAware {
    private final transient LogSink sink;
    private final transient MDCAdapter mdc;
    private final boolean own;

    EgressLogger(String name, LogSink sink, MDCAdapter mdc) {
        this.name = name;
        this.sink = sink;
        this.mdc = mdc;
        this.own = LogSettings.isOwn(name);
    }

    @Override
    public boolean isTraceEnabled() {
        return sink.enabled(own, Level.TRACE);
    }

    @Override
    public boolean isDebugEnabled() {
        return sink.enabled(own, Level.DEBUG);
    }

    @Override
    public boolean isInfoEnabled() {
        return sink.enabled(own, Level.INFO);
    }

    @Override
    public boolean isWarnEnabled() {
        return sink.enabled(own, Level.WARN);
    }

    @Override
    public boolean isErrorEnabled() {
        return sink.enabled(own, Level.ERROR);
    }

    /** No caller location is computed, so no boundary is needed. */
    @Override
    protected String getFullyQualifiedCallerName() {
        return null;
    }

    /** The classic API: AbstractLogger has checked the level and split off the throwable. */
    @Override
    protected void handleNormalizedLoggingCall(
            Level level, Marker marker, String pattern, Object[] arguments, Throwable thrown) {
        emit(level, pattern, arguments, List.of(), thrown);
    }

    /**
     * The fluent API. Without {@code setCause}, a trailing throwable argument is taken as the
     * cause, as the classic API does.
     */
    @Override
    public void log(LoggingEvent event) {
        if (!sink.enabled(own, event.getLevel())) {
            return;
        }
        Object[] arguments = event.getArgumentArray();
        Throwable thrown = event.getThrowable();
        if (thrown == null) {
            thrown = MessageFormatter.getThrowableCandidate(arguments);
            arguments = thrown == null ? arguments : MessageFormatter.trimmedCopy(arguments);
        }
        emit(event.getLevel(), event.getMessage(), arguments, event.getKeyValuePairs(), thrown);
    }

    private void emit(
            Level level,
            String pattern,
            Object[] arguments,
            List<KeyValuePair> keyValues,
            Throwable thrown) {
        String message = MessageFormatter.basicArrayFormat(pattern, arguments);
        sink.emit(new LogEvent(level, name, message, mdc.getCopyOfContextMap(), keyValues, thrown));
    }
}
