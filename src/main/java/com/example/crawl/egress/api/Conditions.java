package com.example.crawl.egress.api;

import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Operations on condition lists, with {@code meta.SetStatusCondition} semantics: a condition's
 * {@code lastTransitionTime} moves only when its status changes, so rewriting the same verdict
 * never looks like a transition.
 */
public final class Conditions {

    private Conditions() {
    }

    /** Formats an instant the way {@code metav1.Time} serialises: UTC, whole seconds. */
    public static String timestamp(Instant instant) {
        return DateTimeFormatter.ISO_INSTANT.format(instant.truncatedTo(ChronoUnit.SECONDS));
    }

    /** The condition of this type, if present. */
    public static Optional<Condition> find(List<Condition> conditions, String type) {
        return conditions.stream().filter(c -> c.type().equals(type)).findFirst();
    }

    /**
     * When the condition of this type turned False, while it is False: its transition time as
     * written (null when it has none). Empty while it is True, Unknown or absent.
     */
    public static Optional<String> falseSince(List<Condition> conditions, String type) {
        return find(conditions, type).filter(Condition::isFalse).map(Condition::lastTransitionTime);
    }

    /**
     * Returns {@code conditions} with {@code update} in place of any condition of its type. When
     * the status is unchanged the old {@code lastTransitionTime} is kept; otherwise {@code update}'s
     * own, which callers set to "now", becomes the transition time.
     */
    public static List<Condition> set(List<Condition> conditions, Condition update) {
        Objects.requireNonNull(update.lastTransitionTime(), "lastTransitionTime");
        String since = find(conditions, update.type())
                .filter(o -> o.status().equals(update.status()) && o.lastTransitionTime() != null)
                .map(Condition::lastTransitionTime)
                .orElse(update.lastTransitionTime());
        Condition merged = new Condition(update.type(), update.status(), update.observedGeneration(), since,
                update.reason(), update.message());
        List<Condition> out = new ArrayList<>(conditions.size() + 1);
        boolean replaced = false;
        for (Condition c : conditions) {
            if (c.type().equals(update.type())) {
                out.add(merged);
                replaced = true;
            } else {
                out.add(c);
            }
        }
        if (!replaced) {
            out.add(merged);
        }
        return List.copyOf(out);
    }

    /** Returns {@code conditions} without any condition of this type. */
    public static List<Condition> remove(List<Condition> conditions, String type) {
        return conditions.stream().filter(c -> !c.type().equals(type)).toList();
    }
}
