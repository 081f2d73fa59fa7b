package com.example.crawl.egress.health;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A prober whose answer per proxy address a test sets, and which records every probe it was
 * asked for. Thread-safe.
 */
final class ScriptedProber implements Prober {
    private final Map<String, ProbeResult> answers = new ConcurrentHashMap<>();
    private final List<ProbeTarget> probed = new ArrayList<>();
    private volatile Runnable onProbe = () -> { };

    static ProbeResult ok(long millis) {
        return new ProbeResult.Success(Duration.ofMillis(millis), 204);
    }

    static ProbeResult timeout() {
        return new ProbeResult.Failure(FailureReason.Timeout, "no answer within 5s", Duration.ofSeconds(5));
    }

    /** From now on, probes of {@code address} return {@code result}. */
    void answer(String address, ProbeResult result) {
        answers.put(address, result);
    }

    /** Runs {@code hook} on the probing thread at the start of every probe. */
    void onProbe(Runnable hook) {
        onProbe = hook;
    }

    @Override
    public ProbeResult probe(ProbeTarget target) {
        onProbe.run();
        synchronized (probed) {
            probed.add(target);
        }
        ProbeResult r = answers.get(target.proxyHost());
        if (r == null) {
            throw new IllegalStateException("no answer scripted for " + target.proxyHost());
        }
        return r;
    }

    /** How many probes went to {@code address} so far. */
    long count(String address) {
        synchronized (probed) {
            return probed.stream().filter(t -> t.proxyHost().equals(address)).count();
        }
    }

    List<ProbeTarget> probed() {
        synchronized (probed) {
            return List.copyOf(probed);
        }
    }
}
