package com.example.crawl.egress.controller;

import com.example.crawl.egress.queue.WorkQueue;
import java.time.Duration;
import java.util.concurrent.ThreadFactory;

/**
 * The Proxy controller's worker loop ({@link Workers}) over {@link ProxyReconciler}. Event sources
 * only put keys on the queue: the informers through {@link #enqueue}, the health engine straight
 * onto the queue, which is built before both. Each reconcile is the root span {@value #SPAN}, with
 * {@code proxy.namespace} and {@code proxy.name}.
 */
public final class ProxyController extends Workers<ProxyKey> {

    static final String SPAN = "Reconcile Proxy";

    /**
     * @param threads         makes the worker threads; platform threads, since providers may block
     *                        in native code
     * @param drainTimeout    how long {@link #close} waits for running reconciles
     * @param instrumentation where each reconcile's span, result and time go
     */
    public ProxyController(ProxyReconciler reconciler, WorkQueue<ProxyKey> queue, int workers,
            ThreadFactory threads, Duration drainTimeout, Instrumentation instrumentation) {
        super("Proxy", "proxy", reconciler::reconcile, queue, workers, threads, drainTimeout, instrumentation);
    }
}
