package com.example.crawl.egress.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.example.crawl.egress.api.GcpSpec;
import com.example.crawl.egress.api.KvmSpec;
import com.example.crawl.egress.api.Placement;
import com.example.crawl.egress.api.ProxyPool;
import com.example.crawl.egress.api.ProxyPoolSpec;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.ProxyTemplate;
import com.example.crawl.egress.fakeapi.FakeApi;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a placement's members are made from, and what a pool is refused for. */
class MemberTemplateTest {

    private static final GcpSpec GCP = new GcpSpec("europe-west1-b", "e2-small", "debian-12", "default", "crawl",
            true, List.of("egress"));
    private static final KvmSpec KVM = new KvmSpec("kvm-1", null, 2, 2048, 20, null, "br0", null);

    @Test
    void shouldLayAPlacementsGcpFieldsOverTheTemplatesFieldByField() {
        ProxySpec merged = MemberTemplate.merged(spec(GCP, null),
                new Placement("b", "gce", 1, null, new Placement.Gcp("europe-west1-c", null, null), null));

        assertEquals(new GcpSpec("europe-west1-c", "e2-small", "debian-12", "default", "crawl", true, List.of("egress")),
                merged.gcp());
    }

    @Test
    void shouldTakeAPlacementsGcpFieldsWhenTheTemplateHasNone() {
        ProxySpec merged = MemberTemplate.merged(spec(null, null),
                new Placement("b", "gce", 1, null, new Placement.Gcp("europe-west1-c", "e2-micro", "crawl-b"), null));

        assertEquals(new GcpSpec("europe-west1-c", "e2-micro", null, null, "crawl-b", null, null), merged.gcp());
    }

    @Test
    void shouldLayAPlacementsKvmHostOverTheTemplatesAndKeepTheRest() {
        ProxySpec merged = MemberTemplate.merged(spec(null, KVM),
                new Placement("h2", "kvm", 1, null, null, new Placement.Kvm("kvm-2")));
        ProxySpec noTemplate = MemberTemplate.merged(spec(null, null),
                new Placement("h2", "kvm", 1, null, null, new Placement.Kvm("kvm-2")));

        assertEquals(new KvmSpec("kvm-2", null, 2, 2048, 20, null, "br0", null), merged.kvm());
        assertEquals(new KvmSpec("kvm-2", null, null, null, null, null, null, null), noTemplate.kvm());
    }

    @Test
    void shouldKeepTheTemplatesProviderBlocksWhereAPlacementSetsNone() {
        ProxySpec merged = MemberTemplate.merged(spec(GCP, KVM), new Placement("a", "gce", 1, null, null,
                new Placement.Kvm(null)));

        assertEquals(GCP, merged.gcp());
        assertEquals(KVM, merged.kvm());
    }

    @Test
    void shouldRefuseAPoolWithoutATemplateSpec() {
        assertEquals(List.of("spec.template.spec: required"), MemberTemplate.violations(pool("fleet",
                new ProxyPoolSpec(1, new ProxyTemplate(null, null), null, null))));
    }

    @Test
    void shouldAcceptANameOfTheLongestLengthAndRefuseALongerOne() {
        String longest = "p".repeat(ProxyPool.MAX_NAME_LENGTH);
        ProxyPoolSpec spec = new ProxyPoolSpec(1, new ProxyTemplate(null, spec(null, null)), null, null);

        assertEquals(List.of(), MemberTemplate.violations(pool(longest, spec)));
        assertEquals(List.of("metadata.name: at most 52 characters, since it is a label value and a prefix of every"
                + " member's name"), MemberTemplate.violations(pool(longest + "p", spec)));
    }

    @Test
    void shouldRefuseAPlacementOfWeightZero() {
        ProxyPoolSpec spec = new ProxyPoolSpec(1, new ProxyTemplate(null, spec(null, null)), List.of(
                new Placement("a", "local", 1, null, null, null), new Placement("b", "local", 0, null, null, null)),
                null);

        assertEquals(List.of("spec.placements[b].weight: must be above 0"), MemberTemplate.violations(pool("fleet", spec)));
    }

    private static ProxySpec spec(GcpSpec gcp, KvmSpec kvm) {
        return new ProxySpec(null, "local", 3128, Map.of("region", "eu"), null, null, gcp, kvm, null, null, null);
    }

    private static ProxyPool pool(String name, ProxyPoolSpec spec) {
        return FakeApi.pool("crawl", name, spec);
    }
}
