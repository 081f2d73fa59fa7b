package com.example.crawl.egress.cache;

import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.Conditions;
import com.example.crawl.egress.api.Phase;
import com.example.crawl.egress.api.Proxy;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.List;
import java.util.Objects;

/**
 * Which changes between two versions of a cached Proxy each controller reads: the Proxy
 * controller skips a write of status alone, the pool controller every change that leaves what a
 * pass reads as it was.
 */
final class ProxyChanges {

    private ProxyChanges() {
    }

    /** Whether anything but status and resourceVersion changed between two versions. */
    static boolean onlyStatusChanged(Proxy before, Proxy after) {
        return sameSpecAndMarks(before, after)
                && Objects.equals(before.getMetadata().getFinalizers(), after.getMetadata().getFinalizers());
    }

    /**
     * Whether the pool controller sees two versions of a member alike: the same owner references,
     * labels, annotations, deletion mark and spec (generation), the same readiness, and Unhealthy
     * since the same time or not at all: what {@code pool.Member} and the in-place comparison
     * read. Finalizers and the other steps of a member's status are the Proxy controller's: in a
     * roll, a new member's claim and {@code Provisioned}, and an old one's {@code Deleting} and
     * finalizer release, change nothing a pass reads, and each was a pass over the whole pool.
     */
    static boolean samePoolView(Proxy before, Proxy after) {
        if (!sameSpecAndMarks(before, after)
                || !Objects.equals(before.getMetadata().getOwnerReferences(), after.getMetadata().getOwnerReferences())) {
            return false;
        }
        List<Condition> x = before.getStatus() == null ? List.of() : before.getStatus().conditions();
        List<Condition> y = after.getStatus() == null ? List.of() : after.getStatus().conditions();
        boolean deleting = after.getMetadata().getDeletionTimestamp() != null;
        return (Phase.of(deleting, x) == Phase.Ready) == (Phase.of(deleting, y) == Phase.Ready)
                && Conditions.falseSince(x, Condition.HEALTHY).equals(Conditions.falseSince(y, Condition.HEALTHY));
    }

    /** The same spec (and generation), deletion mark, labels and annotations. */
    private static boolean sameSpecAndMarks(Proxy before, Proxy after) {
        ObjectMeta a = before.getMetadata();
        ObjectMeta b = after.getMetadata();
        return Objects.equals(a.getGeneration(), b.getGeneration())
                && Objects.equals(a.getDeletionTimestamp(), b.getDeletionTimestamp())
                && Objects.equals(a.getAnnotations(), b.getAnnotations())
                && Objects.equals(a.getLabels(), b.getLabels())
                && Objects.equals(before.getSpec(), after.getSpec());
    }
}
