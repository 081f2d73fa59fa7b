package com.example.crawl.egress.provider;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.function.BooleanSupplier;

/**
 * Optional face of a {@link Provider} that keeps backend resources of its own, which instances
 * share and no Proxy owns (the {@code kvm} provider's base images), and deletes those that
 * nothing has used for a time of the provider's configuration. The orphan sweep calls it once a
 * pass, on the leader, after the provider's instances; the registry finds it with an
 * {@code instanceof} on the undecorated provider, like {@link Checker}.
 *
 * <p>The rule is the orphan sweep's: a resource is deleted only when the provider can prove
 * nothing uses it. Whatever it cannot read, it keeps.
 *
 * <p><b>Contract.</b> {@link #collectUnused} blocks until done, bounds each backend call by the
 * provider's own deadline, and <b>never throws</b>: a backend target it cannot reach, or a delete
 * that fails, is reported in {@link Collected#failed} and retried at the next pass. It logs
 * nothing itself; the sweep logs what it reports.
 */
public interface CollectsUnused {

    /**
     * Deletes what has been unused for the configured time by {@code now}.
     *
     * @param now      the time ages are measured at (the sweep's clock)
     * @param stopping asked between backend targets; once true, nothing more is started
     */
    Collected collectUnused(Instant now, BooleanSupplier stopping);

    /**
     * What one collection did.
     *
     * @param deleted each resource deleted
     * @param held    one line per backend target where nothing could be judged, saying why (a
     *                domain that cannot be read, a disk that cannot be followed): nothing is
     *                deleted there until that changes
     * @param failed  one line per target that could not be reached or per delete that failed
     */
    record Collected(List<Deleted> deleted, List<String> held, List<String> failed) {
        public static final Collected NOTHING = new Collected(List.of(), List.of(), List.of());

        public Collected {
            deleted = List.copyOf(deleted);
            held = List.copyOf(held);
            failed = List.copyOf(failed);
        }
    }

    /**
     * One deleted resource.
     *
     * @param resource    where it was, as a path of the provider's ({@code hosts/hv1/volumes/...})
     * @param unusedSince since when nothing had used it
     */
    record Deleted(String resource, Instant unusedSince) {
        public Deleted {
            Objects.requireNonNull(resource, "resource");
            Objects.requireNonNull(unusedSince, "unusedSince");
        }
    }
}
