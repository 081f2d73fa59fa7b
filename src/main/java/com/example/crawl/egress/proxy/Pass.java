package com.example.crawl.egress.proxy;

import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.Conditions;
import com.example.crawl.egress.api.Phase;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.ProxyStatus;
import com.example.crawl.egress.api.Reason;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.runtime.ObjectChangedException;
import com.example.crawl.egress.runtime.ObjectEvent;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * One reconcile of one Proxy: the object as it stands (replaced after each metadata write), the
 * status as read, and the status being staged. The staged status is written once, at the end,
 * and only when it differs from what was read. Events noted during the pass are handed out only
 * once those writes succeeded.
 *
 * <p>Confined to the worker thread running the reconcile.
 */
final class Pass {

    private final ProxyKey key;
    private final ProxyStore store;
    private final SupersededVersions versions;
    private final Instant now;
    private final ProxyStatus observed;
    private final List<ObjectEvent> events = new ArrayList<>();
    private Proxy proxy;
    private ProxyStatus staged;
    private boolean released;

    Pass(ProxyKey key, Proxy proxy, ProxyStore store, SupersededVersions versions, Instant now) {
        this.key = key;
        this.proxy = proxy;
        this.store = store;
        this.versions = versions;
        this.now = now;
        this.observed = Objects.requireNonNullElse(proxy.getStatus(), ProxyStatus.EMPTY);
        this.staged = observed;
    }

    ProxyKey key() {
        return key;
    }

    Proxy proxy() {
        return proxy;
    }

    ProxySpec spec() {
        return proxy.getSpec();
    }

    long generation() {
        return Objects.requireNonNullElse(proxy.getMetadata().getGeneration(), 0L);
    }

    boolean deleting() {
        return proxy.getMetadata().getDeletionTimestamp() != null;
    }

    ProxyStatus status() {
        return staged;
    }

    Instant now() {
        return now;
    }

    void stage(UnaryOperator<ProxyStatus> change) {
        staged = change.apply(staged);
    }

    /** Stages the {@code Provisioned} condition. */
    void provisioned(boolean status, Reason reason, String message) {
        stage(s -> s.withCondition(Condition.of(Condition.PROVISIONED, status, generation(), reason, message, now)));
    }

    /** The staged {@code Provisioned} condition, if any. */
    Optional<Condition> provisioned() {
        return Conditions.find(staged.conditions(), Condition.PROVISIONED);
    }

    /** Whether the staged {@code Provisioned} condition carries {@code reason}. */
    boolean provisionedBecause(Reason reason) {
        return provisioned().filter(c -> c.hasReason(reason)).isPresent();
    }

    /** The condition of {@code type} as it was read, before this pass staged anything. */
    Optional<Condition> observed(String type) {
        return Conditions.find(observed.conditions(), type);
    }

    /** Notes an Event about this Proxy, for the reconciler to record once the pass's writes succeed. */
    void event(ProxyEventReason reason, String note) {
        events.add(ObjectEvent.about(proxy, reason, note));
    }

    /** The Events noted so far, oldest first. */
    List<ObjectEvent> events() {
        return List.copyOf(events);
    }

    /** Stages "no instance address": the ip and every health field describing it go, the egress address too. */
    void clearAddress() {
        stage(s -> s.withIp(null).withHealth(null, null).withEgressIP(null).withoutCondition(Condition.HEALTHY));
    }

    /**
     * Stages {@code ip} as the address crawlers connect to. When it is another than staged, the
     * egress address goes: it was learned through the other one.
     */
    void address(String ip) {
        stage(s -> ip.equals(s.ip()) ? s : s.withIp(ip).withEgressIP(null));
    }

    boolean hasFinalizer() {
        List<String> finalizers = proxy.getMetadata().getFinalizers();
        return finalizers != null && finalizers.contains(Proxy.FINALIZER);
    }

    String annotation(String name) {
        Map<String, String> annotations = proxy.getMetadata().getAnnotations();
        return annotations == null ? null : annotations.get(name);
    }


    /** Removes the finalizer; the API server may delete the object at once, so no status follows. */
    void removeFinalizer() throws ObjectChangedException {
        updateMetadata(new ObjectMetaBuilder(proxy.getMetadata()).removeFromFinalizers(Proxy.FINALIZER).build());
        released = true;
    }

    /**
     * Puts the finalizer on the object and sets {@code annotations}, in one write, made only when
     * the finalizer is missing or a value changes: what the operator must have recorded before it
     * makes anything for the Proxy, and what that is made from.
     */
    void claim(Map<String, String> annotations) throws ObjectChangedException {
        boolean changed = annotations.entrySet().stream().anyMatch(e -> !e.getValue().equals(annotation(e.getKey())));
        if (hasFinalizer() && !changed) {
            return;
        }
        ObjectMetaBuilder meta = new ObjectMetaBuilder(proxy.getMetadata()).addToAnnotations(annotations);
        if (!hasFinalizer()) {
            meta.addToFinalizers(Proxy.FINALIZER);
        }
        updateMetadata(meta.build());
    }

    /**
     * The provider (by its providers-config name) that made the instance in status: the one
     * recorded with it, else the spec's; null when neither says.
     */
    String instanceProvider() {
        String recorded = annotation(Proxy.INSTANCE_PROVIDER_ANNOTATION);
        // Missing: the spec's. The claim records the maker before every create, and no release wrote
        // an instance without it (docs/decisions.md, "Only state a release wrote is read").
        return recorded != null ? recorded : spec() == null ? null : spec().provider();
    }

    /**
     * Writes the staged status, with {@code observedGeneration} and {@code phase} derived and an
     * unproven {@code Healthy=True} taken back ({@link #withoutUnprovenHealth}), when it differs
     * from what was read; does nothing after the finalizer was released.
     *
     * @return whether a write was made
     */
    boolean writeStatus() throws ObjectChangedException {
        if (released) {
            return false;
        }
        ProxyStatus vouched = withoutUnprovenHealth(staged);
        ProxyStatus last = vouched.withObservedGeneration(generation())
                .withPhase(Phase.of(deleting(), vouched.conditions()));
        if (last.equals(observed)) {
            return false;
        }
        Proxy next = copy(proxy.getMetadata());
        next.setStatus(last);
        replaceWith(store.updateStatus(next));
        return true;
    }

    /**
     * {@code status} with a {@code Healthy=True} made {@code Unknown} ({@link Reason#NotProvisioned})
     * unless {@code Provisioned} is True. Only a pass that sees the instance Running stages a verdict;
     * one that ends early (latched, unknown provider, invalid spec, cloud-init or credentials
     * unusable, a provider error) must not leave the last one vouching for a proxy discovery would
     * lend. A False stays: it vouches for nothing, and its transition time is what a pool's
     * {@code replaceUnhealthyAfter} counts from. Unknown seeds no verdict in a new leader's health
     * engine, as no condition would.
     */
    private ProxyStatus withoutUnprovenHealth(ProxyStatus status) {
        boolean provisioned = Conditions.find(status.conditions(), Condition.PROVISIONED).map(Condition::isTrue)
                .orElse(false);
        boolean claimsHealthy = Conditions.find(status.conditions(), Condition.HEALTHY).map(Condition::isTrue)
                .orElse(false);
        if (provisioned || !claimsHealthy) {
            return status;
        }
        return status.withCondition(new Condition(Condition.HEALTHY, Condition.UNKNOWN, generation(),
                Conditions.timestamp(now), Reason.NotProvisioned.name(),
                "not judged while the Proxy is not provisioned (see the Provisioned condition); not lent"));
    }

    private void updateMetadata(ObjectMeta meta) throws ObjectChangedException {
        replaceWith(store.update(copy(meta)));
    }

    private void replaceWith(Proxy written) {
        versions.replaced(key, proxy.getMetadata().getResourceVersion());
        proxy = written;
    }

    private Proxy copy(ObjectMeta meta) {
        Proxy next = new Proxy();
        next.setMetadata(meta);
        next.setSpec(proxy.getSpec());
        next.setStatus(proxy.getStatus());
        return next;
    }
}
