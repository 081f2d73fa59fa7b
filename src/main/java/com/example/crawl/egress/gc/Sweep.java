package com.example.crawl.egress.gc;

import com.example.crawl.egress.gc.OrphanRule.Verdict;
import com.example.crawl.egress.provider.CollectsUnused;
import com.example.crawl.egress.provider.Instance;
import com.example.crawl.egress.provider.Provider;
import com.example.crawl.egress.provider.ProviderException;
import com.example.crawl.egress.provider.ProviderRegistry;
import com.example.crawl.egress.tracing.ActiveSpan;
import io.opentelemetry.api.trace.Tracer;
import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One pass of the orphan sweeper, in its own root span {@code gc.sweep}:
 *
 * <ol>
 *   <li>note the time, then list the live Proxy UIDs from the API server; if that fails, judge
 *       nothing (result {@code skipped});</li>
 *   <li>for each configured provider, in config order: {@code listByTag}, and delete each
 *       instance {@link OrphanRule} calls an orphan. A provider that cannot list, or an instance
 *       that cannot be deleted, is logged and left for the next sweep; the others go on. A
 *       provider that keeps resources of its own ({@link CollectsUnused}: the kvm provider's base
 *       images) then deletes those unused for its configured time, each deletion logged like an
 *       instance's; what it could not reach counts as a failure, what it could not judge is
 *       logged at INFO;</li>
 *   <li>then the same for the operator's Secrets, kind by kind.</li>
 * </ol>
 *
 * <p>Ages are measured at the time noted before the Proxies were listed. Anything created after
 * that moment is therefore never older than zero, so a Proxy created during the sweep (missing
 * from the live set) cannot have its instance or Secret taken for an orphan, whatever the minimum
 * age; the minimum age is left to cover clock skew and creates that straddle the list.
 *
 * <p>Every delete is idempotent and every pass judges afresh, so a pass cut short (a crash, a
 * close) loses nothing: the next one finds what is left. Providers are called as the registry
 * hands them out, decorated, so their calls are counted and traced like the reconciler's.
 *
 * <p>Not thread-safe: one pass at a time, which {@link OrphanSweeper} guarantees.
 */
final class Sweep {

    private static final Logger LOG = LoggerFactory.getLogger(OrphanSweeper.class);

    /** What a pass did. */
    record Result(String outcome, int instancesDeleted, int secretsDeleted, int failures) { }

    private final ProviderRegistry providers;
    private final Cluster cluster;
    private final OrphanRule rule;
    private final Clock clock;
    private final GcRecorder recorder;
    private final Tracer tracer;
    /**
     * Per provider, the orphans a pass deleted that the provider may still list for a while (a VM
     * being deleted, a pod terminating): a later pass asks again, which is harmless, but counts and
     * logs each orphan once. Forgets an instance once the provider no longer lists it. Touched by
     * one pass at a time.
     */
    private final Map<String, Set<String>> deleted = new HashMap<>();

    Sweep(ProviderRegistry providers, Cluster cluster, OrphanRule rule, Clock clock, GcRecorder recorder,
            Tracer tracer) {
        this.providers = Objects.requireNonNull(providers, "providers");
        this.cluster = Objects.requireNonNull(cluster, "cluster");
        this.rule = Objects.requireNonNull(rule, "rule");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.recorder = Objects.requireNonNull(recorder, "recorder");
        this.tracer = Objects.requireNonNull(tracer, "tracer");
    }

    /**
     * Runs one pass. Never throws: every failure is logged and reflected in the result.
     *
     * @param stopping asked before each delete; once true, the pass deletes nothing more
     */
    Result run(BooleanSupplier stopping) {
        try (ActiveSpan span = ActiveSpan.start(tracer.spanBuilder("gc.sweep").setNoParent())) {
            Instant listedAt = clock.instant();
            Set<String> live;
            try {
                live = cluster.liveProxyUids();
            } catch (Cluster.Unavailable | RuntimeException e) {
                LOG.atWarn().addKeyValue("error", message(e)).log("Cannot list Proxies; skipping this orphan sweep");
                span.set("gc.result", GcRecorder.SKIPPED).failed("ProxyListFailed", message(e));
                recorder.swept(GcRecorder.SKIPPED);
                return new Result(GcRecorder.SKIPPED, 0, 0, 1);
            }
            Pass pass = new Pass(live, listedAt, stopping);
            for (String name : providers.names()) {
                providers.find(name).ifPresent(p -> pass.instances(name, p));
                providers.collector(name).ifPresent(c -> pass.unused(name, c));
            }
            for (OwnedSecret.Kind kind : OwnedSecret.Kind.values()) {
                pass.secrets(kind);
            }
            Result result = pass.result();
            span.set("gc.result", result.outcome()).set("gc.live_proxies", live.size())
                    .set("gc.instances.deleted", result.instancesDeleted())
                    .set("gc.secrets.deleted", result.secretsDeleted());
            if (result.outcome().equals(GcRecorder.PARTIAL)) {
                span.failed("Incomplete", pass.stopped ? "stopped before the end"
                        : result.failures() + " listings or deletes failed");
            }
            recorder.swept(result.outcome());
            LOG.atInfo().addKeyValue("result", result.outcome()).addKeyValue("liveProxies", live.size())
                    .addKeyValue("instancesDeleted", result.instancesDeleted())
                    .addKeyValue("secretsDeleted", result.secretsDeleted()).addKeyValue("failures", result.failures())
                    .log("Finished orphan sweep");
            return result;
        }
    }

    /** The state of one pass: what it judges against and what it has done so far. */
    private final class Pass {
        private final Set<String> live;
        private final Instant listedAt;
        private final BooleanSupplier stopping;
        private int instancesDeleted;
        private int secretsDeleted;
        private int failures;
        private boolean stopped;

        Pass(Set<String> live, Instant listedAt, BooleanSupplier stopping) {
            this.live = live;
            this.listedAt = listedAt;
            this.stopping = stopping;
        }

        void instances(String name, Provider provider) {
            if (stop()) {
                return;
            }
            List<Instance> listed;
            try {
                listed = provider.listByTag();
            } catch (ProviderException | RuntimeException e) {
                ProviderException p = ProviderException.classify(e);
                LOG.atWarn().addKeyValue("provider", name).addKeyValue("errorKind", p.kind())
                        .addKeyValue("error", p.getMessage())
                        .log("Cannot list instances; skipping this provider until the next orphan sweep");
                failures++;
                return;
            }
            Set<String> deletedBefore = deleted.computeIfAbsent(name, n -> new HashSet<>());
            deletedBefore.retainAll(listed.stream().map(Instance::providerID).collect(Collectors.toSet()));
            for (Instance instance : listed) {
                Verdict verdict = rule.judge(instance.ownerUid(), instance.createdAt(), live, listedAt);
                if (verdict != Verdict.ORPHAN) {
                    LOG.atDebug().addKeyValue("provider", name).addKeyValue("providerID", instance.providerID())
                            .addKeyValue("uid", instance.ownerUid()).addKeyValue("reason", verdict.label())
                            .log("Keeping instance");
                } else if (stop()) {
                    return;
                } else {
                    delete(name, provider, instance, deletedBefore);
                }
            }
        }

        void unused(String name, CollectsUnused collector) {
            if (stop()) {
                return;
            }
            CollectsUnused.Collected collected;
            try {
                collected = collector.collectUnused(clock.instant(), this::stop);
            } catch (RuntimeException e) {
                LOG.atWarn().addKeyValue("provider", name).addKeyValue("error", message(e))
                        .log("Cannot collect unused provider resources; trying again at the next orphan sweep");
                failures++;
                return;
            }
            for (CollectsUnused.Deleted deleted : collected.deleted()) {
                LOG.atWarn().addKeyValue("provider", name).addKeyValue("resource", deleted.resource())
                        .addKeyValue("unusedSince", deleted.unusedSince()).log("Deleted unused provider resource");
            }
            for (String held : collected.held()) {
                LOG.atInfo().addKeyValue("provider", name).addKeyValue("reason", held)
                        .log("Deleting no unused resource of a provider target: what uses them cannot be read there");
            }
            for (String failed : collected.failed()) {
                LOG.atWarn().addKeyValue("provider", name).addKeyValue("error", failed)
                        .log("Cannot collect unused provider resources; trying again at the next orphan sweep");
                failures++;
            }
        }

        private void delete(String name, Provider provider, Instance instance, Set<String> deletedBefore) {
            try {
                provider.delete(instance.providerID());
            } catch (ProviderException | RuntimeException e) {
                ProviderException p = ProviderException.classify(e);
                LOG.atWarn().addKeyValue("provider", name).addKeyValue("providerID", instance.providerID())
                        .addKeyValue("uid", instance.ownerUid()).addKeyValue("errorKind", p.kind())
                        .addKeyValue("error", p.getMessage())
                        .log("Cannot delete orphaned instance; retrying at the next orphan sweep");
                failures++;
                return;
            }
            if (!deletedBefore.add(instance.providerID())) {
                LOG.atDebug().addKeyValue("provider", name).addKeyValue("providerID", instance.providerID())
                        .log("Deleted an orphaned instance again: the provider still lists it");
                return;
            }
            instancesDeleted++;
            recorder.instanceDeleted(name);
            LOG.atWarn().addKeyValue("provider", name).addKeyValue("providerID", instance.providerID())
                    .addKeyValue("uid", instance.ownerUid()).addKeyValue("createdAt", instance.createdAt())
                    .log("Deleted orphaned instance");
        }

        void secrets(OwnedSecret.Kind kind) {
            if (stop()) {
                return;
            }
            List<OwnedSecret> listed;
            try {
                listed = cluster.secrets(kind);
            } catch (Cluster.Unavailable | RuntimeException e) {
                LOG.atWarn().addKeyValue("kind", kind.label()).addKeyValue("error", message(e))
                        .log("Cannot list Secrets; skipping them until the next orphan sweep");
                failures++;
                return;
            }
            for (OwnedSecret secret : listed) {
                Verdict verdict = rule.judge(secret.ownerUid(), secret.createdAt(), live, listedAt);
                if (verdict != Verdict.ORPHAN) {
                    LOG.atDebug().addKeyValue("namespace", secret.namespace()).addKeyValue("secret", secret.name())
                            .addKeyValue("uid", secret.ownerUid()).addKeyValue("reason", verdict.label())
                            .log("Keeping Secret");
                } else if (stop()) {
                    return;
                } else {
                    delete(secret);
                }
            }
        }

        private void delete(OwnedSecret secret) {
            Cluster.Deletion deletion;
            try {
                deletion = cluster.delete(secret);
            } catch (Cluster.Unavailable | RuntimeException e) {
                LOG.atWarn().addKeyValue("namespace", secret.namespace()).addKeyValue("secret", secret.name())
                        .addKeyValue("kind", secret.kind().label()).addKeyValue("uid", secret.ownerUid())
                        .addKeyValue("error", message(e))
                        .log("Cannot delete orphaned Secret; retrying at the next orphan sweep");
                failures++;
                return;
            }
            if (deletion != Cluster.Deletion.DELETED) {
                LOG.atDebug().addKeyValue("namespace", secret.namespace()).addKeyValue("secret", secret.name())
                        .addKeyValue("found", deletion).log("Orphaned Secret went or changed before its delete");
                return;
            }
            secretsDeleted++;
            recorder.secretDeleted(secret.kind().label());
            LOG.atWarn().addKeyValue("namespace", secret.namespace()).addKeyValue("secret", secret.name())
                    .addKeyValue("kind", secret.kind().label()).addKeyValue("uid", secret.ownerUid())
                    .addKeyValue("createdAt", secret.createdAt()).log("Deleted orphaned Secret");
        }

        private boolean stop() {
            stopped = stopped || stopping.getAsBoolean();
            return stopped;
        }

        Result result() {
            String outcome = failures > 0 || stopped ? GcRecorder.PARTIAL : GcRecorder.COMPLETED;
            return new Result(outcome, instancesDeleted, secretsDeleted, failures);
        }
    }

    private static String message(Exception e) {
        return e.getMessage() == null ? e.getClass().getName() : e.getMessage();
    }
}
