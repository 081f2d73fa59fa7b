package com.example.crawl.egress.provider;

import java.time.Duration;

/**
 * Where {@link MeteredProvider} reports each provider call: the {@code provider} package's view of
 * the metrics, so that it never imports the metrics package. {@code Main} passes the metrics
 * object, which implements this interface among others.
 *
 * <p>Implementations are thread-safe, return quickly without blocking and never throw: they are
 * called on the reconcile workers' threads after every provider call.
 */
@FunctionalInterface
public interface RequestRecorder {

    /** Result label of a call that returned normally. */
    String OK = "ok";

    /**
     * Records one call.
     *
     * @param provider the provider's name from the providers config
     * @param op       {@code create}, {@code get}, {@code delete} or {@code list}
     * @param result   {@link #OK}, or the error's {@link ProviderException#kind()}
     *                 ({@code NotFound}, {@code Transient}, {@code QuotaExceeded}, {@code Permanent})
     * @param elapsed  how long the call took
     */
    void record(String provider, String op, String result, Duration elapsed);
}
