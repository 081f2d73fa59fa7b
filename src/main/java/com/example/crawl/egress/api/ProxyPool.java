package com.example.crawl.egress.api;

import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;
import java.util.List;
import java.util.Optional;

/**
 * A fleet of Proxies kept at a count: {@code proxypools.crawl.example.com/v1alpha1}, namespaced,
 * short name {@code pool}. The pool controller owns its member Proxies the way a ReplicaSet owns
 * Pods: each member carries a controller owner reference to the pool and the labels below, and is
 * made from {@code spec.template} and one of {@code spec.placements}.
 *
 * <p>As with {@link Proxy}, the operator is the only writer of {@code status}; treat a cached
 * pool as read-only.
 */
@Group(Proxy.GROUP)
@Version(Proxy.VERSION)
@Kind("ProxyPool")
@Plural("proxypools")
@Singular("proxypool")
@ShortNames("pool")
public final class ProxyPool extends CustomResource<ProxyPoolSpec, ProxyPoolStatus> implements Namespaced {

    /** The kind, as owner references spell it. */
    public static final String KIND = "ProxyPool";
    private static final String GROUP_PREFIX = Proxy.GROUP + "/";
    /** Label on every member: the pool's name. {@code status.selector} selects on it. */
    public static final String POOL_LABEL = Proxy.GROUP + "/pool";
    /**
     * Label on every member: the hash of what its instance is made from (the instance-shaping
     * fields {@link SpecHash} covers, of the template merged with the member's placement).
     * A member whose hash differs from its placement's current one is rolled.
     */
    public static final String TEMPLATE_HASH_LABEL = Proxy.GROUP + "/pool-template-hash";
    /** Label on every member: the {@link Placement#id()} it was placed by. */
    public static final String PLACEMENT_LABEL = Proxy.GROUP + "/pool-placement";
    /**
     * Annotation the pool controller puts on a member once its replacement is decided; the value
     * is why ({@link RetireReason}). Discovery no longer lends a member that carries it; leases
     * already lent run out as usual.
     */
    public static final String RETIRED_ANNOTATION = Proxy.GROUP + "/retired";
    /** The longest pool name: the name is a label value on every member and a prefix of its name. */
    public static final int MAX_NAME_LENGTH = 52;

    /** Why a member is being replaced. */
    public enum RetireReason {
        /** Reported {@code banned} on at least {@code recycleAfterBans.targets} targets within the window. */
        Banned,
        /** Unhealthy for longer than {@code replaceUnhealthyAfter}. */
        Unhealthy,
        /** Older than {@code maxAge}. */
        MaxAge,
        /** Made from a template, or a placement, the pool no longer has. */
        TemplateChanged
    }

    /**
     * The pool a Proxy is a member of: its controller owner reference of kind ProxyPool in our
     * group, whatever the pool's UID; empty for a Proxy no pool owns.
     */
    public static Optional<OwnerReference> owning(Proxy proxy) {
        List<OwnerReference> refs = proxy.getMetadata().getOwnerReferences();
        if (refs != null) {
            // A loop, not a stream: every pool pass asks this of every member (a JFR profile of a roll put it first).
            for (OwnerReference r : refs) {
                if (KIND.equals(r.getKind()) && Boolean.TRUE.equals(r.getController()) && r.getApiVersion() != null
                        && r.getApiVersion().startsWith(GROUP_PREFIX)) {
                    return Optional.of(r);
                }
            }
        }
        return Optional.empty();
    }

    @Override
    protected ProxyPoolSpec initSpec() {
        return null;
    }

    @Override
    protected ProxyPoolStatus initStatus() {
        return null;
    }
}
