package com.example.crawl.egress.providerhealth;

import com.example.crawl.egress.api.ProviderHealth;
import com.example.crawl.egress.api.ProviderHealthStatus;
import com.example.crawl.egress.api.TargetHealth;
import com.example.crawl.egress.provider.TargetStatus;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes one provider's verdict as the status of its {@code ProviderHealth}: reads the object
 * (creating it when missing; a 409 on create means someone was faster, so it reads again),
 * replaces the status, and on a conflict reads and writes once more at once. A second conflict, or
 * any other failure, is logged and left to the next round, which writes the whole status again:
 * nothing is lost by skipping one.
 *
 * <p>A target's {@code lastTransitionTime} is carried over from the stored status while its
 * {@code ready} and {@code reason} stay the same, and is the round's time when either changed or
 * the target is new. Thread-safe: it keeps no state, and each call handles one provider.
 */
final class StatusWriter {

    private static final Logger LOG = LoggerFactory.getLogger(StatusWriter.class);
    /** The CRD's limit on a target's message; a longer one would make the API refuse the whole status. */
    static final int MESSAGE_LIMIT = 32768;

    private final HealthStore store;

    StatusWriter(HealthStore store) {
        this.store = store;
    }

    /** Writes the status; returns whether it was written. Never throws. */
    boolean write(String provider, String type, List<TargetStatus> targets, Instant checkedAt) {
        try {
            for (int attempt = 1; ; attempt++) {
                ProviderHealth object = readOrCreate(provider);
                object.setStatus(status(type, targets, checkedAt, object.getStatus()));
                try {
                    store.updateStatus(object);
                    return true;
                } catch (HealthStore.Changed e) {
                    if (attempt == 2) {
                        LOG.atWarn().addKeyValue("provider", provider).addKeyValue("error", e.getMessage())
                                .log("Provider health status changed twice while being written; the next round writes it");
                        return false;
                    }
                }
            }
        } catch (HealthStore.Changed | RuntimeException e) {
            LOG.atWarn().addKeyValue("provider", provider).addKeyValue("error", String.valueOf(e.getMessage()))
                    .log("Cannot write provider health status; the next round tries again");
            return false;
        }
    }

    private ProviderHealth readOrCreate(String provider) throws HealthStore.Changed {
        var stored = store.get(provider);
        if (stored.isPresent()) {
            return stored.get();
        }
        try {
            return store.create(provider);
        } catch (HealthStore.Changed e) {
            // Created meanwhile (another leader's last write, a person): write over what is there now.
            return store.get(provider).orElseThrow(() -> e);
        }
    }

    /** The status to store: {@code targets} in their order, transition times kept where nothing changed. */
    static ProviderHealthStatus status(String type, List<TargetStatus> targets, Instant checkedAt,
            ProviderHealthStatus stored) {
        String now = rfc3339(checkedAt);
        Map<String, TargetHealth> before = new HashMap<>();
        if (stored != null) {
            stored.targets().forEach(t -> before.putIfAbsent(t.name(), t));
        }
        List<TargetHealth> out = targets.stream().map(t -> {
            TargetHealth was = before.get(t.name());
            boolean same = was != null && was.ready() == t.ready()
                    && Objects.equals(orNull(was.reason()), orNull(t.reason())) && was.lastTransitionTime() != null;
            return new TargetHealth(t.name(), t.ready(), orNull(t.reason()), orNull(fit(t.message())), t.details(),
                    same ? was.lastTransitionTime() : now);
        }).toList();
        return ProviderHealthStatus.of(type, now, out);
    }

    /** RFC 3339 in whole seconds, as the API server writes its own times. */
    static String rfc3339(Instant t) {
        return t.truncatedTo(ChronoUnit.SECONDS).toString();
    }

    /** Empty strings are left out of the object: the CRD's pattern refuses an empty reason. */
    private static String orNull(String s) {
        return s == null || s.isEmpty() ? null : s;
    }

    private static String fit(String message) {
        return message.length() <= MESSAGE_LIMIT ? message : message.substring(0, MESSAGE_LIMIT - 1) + "…";
    }
}
