package com.example.crawl.egress.health;

import com.example.crawl.egress.cache.ProxyKey;
import java.time.Duration;

/**
 * Where the engine reports every probe, for metrics. Status changes only on transitions; this is
 * where the per-probe signal goes. Implementations are thread-safe and must not block: they are
 * called from probe threads (under the engine's verdict lock, for {@link #finished}) and from the
 * engine's scheduling thread.
 *
 * <p>Once {@link #forgotten} was called for a key, {@link #finished} is not called for it again
 * unless the engine starts probing it anew; so series dropped there stay dropped.
 */
public interface ProbeRecorder {

    /** Records nothing. */
    ProbeRecorder NONE = new ProbeRecorder() {
        @Override
        public void started(Duration lateness) { }

        @Override
        public void finished(ProxyKey key, ProbeResult result) { }

        @Override
        public void forgotten(ProxyKey key) { }
    };

    /** A probe started {@code lateness} after it was due. */
    void started(Duration lateness);

    /** A probe of {@code key} ended with {@code result}. */
    void finished(ProxyKey key, ProbeResult result);

    /** The engine stopped probing {@code key} (deleted, replaced, or lost its address): drop its series. */
    void forgotten(ProxyKey key);
}
