package com.example.crawl.egress.log;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.ILoggerFactory;
import org.slf4j.Logger;
import org.slf4j.spi.MDCAdapter;

/** Creates one {@link EgressLogger} per name, all writing to one sink. Thread-safe. */
final class EgressLoggerFactory implements ILoggerFactory {
    private final ConcurrentMap<String, Logger> loggers = new ConcurrentHashMap<>();
    private final LogSink sink;
    private final MDCAdapter mdc;

    EgressLoggerFactory(LogSink sink, MDCAdapter mdc) {
        this.sink = sink;
        this.mdc = mdc;
    }

    @Override
    public Logger getLogger(String name) {
        return loggers.computeIfAbsent(name, n -> new EgressLogger(n, sink, mdc));
    }
}
