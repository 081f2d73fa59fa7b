package com.example.crawl.egress.providerhealth;

import com.example.crawl.egress.provider.TargetStatus;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs each target's transitions once: a target that goes down, or stays down for another
 * reason, is a WARN {@value #NOT_READY}; one that comes back is an INFO {@value #READY}; a target
 * that stays as it was is silent. What came before is what this process saw in its previous
 * round, so after a start (a new leader) a target that is down is reported once, and one that is
 * up is not. Provider transitions are log lines, not Events: the object's per-target
 * {@code lastTransitionTime} keeps when each one happened.
 *
 * <p>Not thread-safe: the monitor's round thread calls it, once per provider per round.
 */
final class Transitions {

    static final String NOT_READY = "Provider target not ready";
    static final String READY = "Provider target ready";
    private static final Logger LOG = LoggerFactory.getLogger(Transitions.class);

    private final Map<String, Map<String, TargetStatus>> previous = new HashMap<>();

    /** Logs what changed for {@code provider} since its previous round and remembers {@code targets}. */
    void observe(String provider, List<TargetStatus> targets) {
        Map<String, TargetStatus> before = previous.getOrDefault(provider, Map.of());
        Map<String, TargetStatus> now = new LinkedHashMap<>();
        for (TargetStatus t : targets) {
            now.putIfAbsent(t.name(), t);
            TargetStatus was = before.get(t.name());
            if (!t.ready() && (was == null || was.ready() || !was.reason().equals(t.reason()))) {
                LOG.atWarn().addKeyValue("provider", provider).addKeyValue("target", t.name())
                        .addKeyValue("reason", t.reason()).addKeyValue("message", t.message()).log(NOT_READY);
            } else if (t.ready() && was != null && !was.ready()) {
                LOG.atInfo().addKeyValue("provider", provider).addKeyValue("target", t.name()).log(READY);
            }
        }
        previous.put(provider, now);
    }
}
