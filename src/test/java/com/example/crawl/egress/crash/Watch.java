package com.example.crawl.egress.crash;

import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The watch of one process's informer cache, modelled: each change the API announces is delivered
 * now, or held back by the {@link FaultPlan} (a dropped watch, seen again at the relist), the
 * cache serving the older object meanwhile. A change with a held delivery gets every later one
 * with it, as a watch does. Held deliveries come due in the order of their time, then of their
 * name. Dies with its process.
 *
 * @param <E> what a delivery names: a key, or a change of one of several kinds
 */
public final class Watch<E> {

    private final FaultPlan plan;
    private final Consumer<E> deliver;
    private final Map<E, Instant> held = new HashMap<>();

    /** @param deliver brings the cache up to date with the API for a change, and enqueues what it concerns */
    public Watch(FaultPlan plan, Consumer<E> deliver) {
        this.plan = plan;
        this.deliver = deliver;
    }

    /** The API changed what {@code change} names: its event arrives now, or after the plan's delay. */
    public void changed(E change) {
        Duration delay = plan.watchDelay(); // drawn for every change, held or not: a seed replays
        if (held.containsKey(change)) {
            return;
        }
        if (delay.isZero()) {
            deliver.accept(change);
        } else {
            held.put(change, plan.now().plus(delay));
        }
    }

    /** Delivers every held change due by {@code now}. */
    void deliverDue(Instant now) {
        held.entrySet().stream().filter(e -> !e.getValue().isAfter(now)).map(Map.Entry::getKey)
                .sorted(Comparator.comparing(Object::toString)).toList()
                .forEach(change -> {
                    held.remove(change);
                    deliver.accept(change);
                });
    }

    /** When the next held change arrives, if one is held. */
    Optional<Instant> nextDelivery() {
        return held.values().stream().min(Comparator.naturalOrder());
    }
}
