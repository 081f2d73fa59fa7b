package com.example.crawl.egress.pool;

import com.example.crawl.egress.api.GcpSpec;
import com.example.crawl.egress.api.KvmSpec;
import com.example.crawl.egress.api.Placement;
import com.example.crawl.egress.api.ProxyPool;
import com.example.crawl.egress.api.ProxyPoolSpec;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.SpecHash;
import com.example.crawl.egress.api.SpecRules;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the members of one placement are made from: the pool's template with the placement's
 * provider, attributes and provider fields laid over it, and the hash of the part that shapes the
 * instance.
 *
 * <p>The hash covers what {@link SpecHash} covers (provider, port, cloud-init as written, the
 * provider blocks): a member whose hash differs is rolled, a new instance made by a new member.
 * The rest (attributes, {@code maxLeases}, {@code healthCheck}, labels, annotations) is updated on
 * the members in place, since changing it on a Proxy never replaces its instance.
 *
 * @param placement the placement (for a pool without placements, one made from the template's provider)
 * @param spec      the member's spec
 * @param labels    the template's labels plus the pool's own ({@link ProxyPool#POOL_LABEL},
 *                  {@link ProxyPool#TEMPLATE_HASH_LABEL}, {@link ProxyPool#PLACEMENT_LABEL})
 * @param annotations the template's annotations
 * @param hash      16 hex characters
 */
record MemberTemplate(Placement placement, ProxySpec spec, Map<String, String> labels,
        Map<String, String> annotations, String hash) {

    /** One template per placement, in the order of {@code spec.placements}. */
    static Map<String, MemberTemplate> of(ProxyPool pool) {
        ProxyPoolSpec spec = pool.getSpec();
        List<Placement> placements = spec.placements().isEmpty()
                ? List.of(new Placement(null, spec.template().spec().provider(), null, null, null, null))
                : spec.placements();
        Map<String, MemberTemplate> out = new LinkedHashMap<>();
        for (Placement p : placements) {
            ProxySpec merged = merged(spec.template().spec(), p);
            String hash = hash(merged);
            Map<String, String> labels = new TreeMap<>(spec.template().metadata().labels());
            labels.put(ProxyPool.POOL_LABEL, pool.getMetadata().getName());
            labels.put(ProxyPool.TEMPLATE_HASH_LABEL, hash);
            labels.put(ProxyPool.PLACEMENT_LABEL, p.id());
            out.put(p.id(), new MemberTemplate(p, merged, Map.copyOf(labels),
                    spec.template().metadata().annotations(), hash));
        }
        return out;
    }

    /**
     * What is wrong with the members this pool would make, as {@code field: problem} messages;
     * empty when every placement makes a valid Proxy.
     */
    static List<String> violations(ProxyPool pool) {
        ProxyPoolSpec spec = pool.getSpec();
        List<String> out = new ArrayList<>();
        if (spec.template() == null || spec.template().spec() == null) {
            return List.of("spec.template.spec: required");
        }
        if (spec.template().spec().mode() != ProxySpec.Mode.Managed) {
            out.add("spec.template.spec.mode: must be Managed, a pool provisions its members");
        }
        if (pool.getMetadata().getName().length() > ProxyPool.MAX_NAME_LENGTH) {
            out.add("metadata.name: at most " + ProxyPool.MAX_NAME_LENGTH
                    + " characters, since it is a label value and a prefix of every member's name");
        }
        if (spec.replicas() < 0) {
            out.add("spec.replicas: must not be negative");
        }
        for (Placement p : spec.placements()) {
            if (p.provider() == null || p.provider().isBlank()) {
                out.add("spec.placements: every placement needs a provider");
            }
            if (p.weight() <= 0) {
                out.add("spec.placements[" + p.id() + "].weight: must be above 0");
            }
        }
        if (spec.placements().stream().map(Placement::id).distinct().count() < spec.placements().size()) {
            out.add("spec.placements: names (or providers, where no name is given) must be unique");
        }
        if (!out.isEmpty()) {
            return out;
        }
        for (MemberTemplate t : of(pool).values()) {
            for (String v : SpecRules.violations(t.spec())) {
                out.add((spec.placements().isEmpty() ? "" : "placement " + t.placement().id() + ": ")
                        + v.replaceFirst("^spec\\.", "spec.template.spec."));
            }
        }
        return out;
    }

    /** The template's spec with the placement's provider, attributes, and gcp and kvm fields over it. */
    static ProxySpec merged(ProxySpec template, Placement p) {
        Map<String, String> attributes = new TreeMap<>(template.attributes());
        attributes.putAll(p.attributes());
        return new ProxySpec(ProxySpec.Mode.Managed, p.provider(), template.port(), attributes, template.maxLeases(),
                template.cloudInit(), gcp(template.gcp(), p.gcp()), kvm(template.kvm(), p.kvm()), template.kubernetes(),
                null, template.healthCheck());
    }

    private static GcpSpec gcp(GcpSpec base, Placement.Gcp over) {
        if (over == null) {
            return base;
        }
        GcpSpec b = base != null ? base : new GcpSpec(null, null, null, null, null, null, null);
        return new GcpSpec(or(over.zone(), b.zone()), or(over.machineType(), b.machineType()), b.image(), b.network(),
                or(over.subnetwork(), b.subnetwork()), b.spot(), b.tags());
    }

    private static KvmSpec kvm(KvmSpec base, Placement.Kvm over) {
        if (over == null || over.host() == null) {
            return base;
        }
        KvmSpec b = base != null ? base : new KvmSpec(null, null, null, null, null, null, null, null);
        return new KvmSpec(over.host(), b.image(), b.vcpus(), b.memoryMiB(), b.diskGiB(), b.firmware(), b.network(),
                b.secureBoot());
    }

    private static String or(String a, String b) {
        return a != null ? a : b;
    }

    /** The instance-shaping hash: {@link SpecHash} over the spec, with cloud-init as written. */
    static String hash(ProxySpec spec) {
        String cloudInit = spec.cloudInit() == null ? null : spec.cloudInit().toString();
        return SpecHash.of(spec, cloudInit, null).substring(0, 16);
    }

    /** Whether a member's spec differs from this template's in what can change in place. */
    boolean differsInPlace(ProxySpec member) {
        return !member.attributes().equals(spec.attributes()) || !member.maxLeases().equals(spec.maxLeases())
                || !member.healthCheck().equals(spec.healthCheck());
    }

    /** {@code member} with this template's attributes, {@code maxLeases} and {@code healthCheck}. */
    ProxySpec inPlace(ProxySpec member) {
        return new ProxySpec(member.mode(), member.provider(), member.port(), spec.attributes(), spec.maxLeases(),
                member.cloudInit(), member.gcp(), member.kvm(), member.kubernetes(), member.endpoint(),
                spec.healthCheck());
    }
}
