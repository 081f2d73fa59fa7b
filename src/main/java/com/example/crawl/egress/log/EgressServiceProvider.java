package com.example.crawl.egress.log;

import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * The SLF4J 2 provider of this process, found by {@code ServiceLoader} through
 * {@code META-INF/services/org.slf4j.spi.SLF4JServiceProvider}. Its loggers write to
 * {@link LogSink#PROCESS}, which {@link LogSetup#configure} configures; the MDC is
 * {@link ThreadMdc}, per thread and not inherited.
 *
 * <p>Public with a public no-argument constructor only because {@code ServiceLoader} requires
 * it; nothing in this project should create or call it.
 */
public final class EgressServiceProvider implements SLF4JServiceProvider {
    /** SLF4J's convention for "any 2.0.x": no compatibility warning for a 2.0 API jar. */
    private static final String REQUESTED_API_VERSION = "2.0.99";

    private final MDCAdapter mdcAdapter = new ThreadMdc();
    private final IMarkerFactory markerFactory = new BasicMarkerFactory();
    private final ILoggerFactory loggerFactory =
            new EgressLoggerFactory(LogSink.PROCESS, mdcAdapter);

    /** For {@code ServiceLoader}. */
    public EgressServiceProvider() {
    }

    @Override
    public ILoggerFactory getLoggerFactory() {
        return loggerFactory;
    }

    @Override
    public IMarkerFactory getMarkerFactory() {
        return markerFactory;
    }

    @Override
    public MDCAdapter getMDCAdapter() {
        return mdcAdapter;
    }

    @Override
    public String getRequestedApiVersion() {
        return REQUESTED_API_VERSION;
    }

    /** Nothing to do: the fields are built in the constructor and the sink starts configured. */
    @Override
    public void initialize() {
    }
}
