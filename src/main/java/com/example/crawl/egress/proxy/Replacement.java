package com.example.crawl.egress.proxy;

import com.example.crawl.egress.api.Reason;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.provider.Provider;
import com.example.crawl.egress.provider.ProviderException;
import com.example.crawl.egress.provider.ProviderRegistry;
import com.example.crawl.egress.runtime.Outcome;
import com.example.crawl.egress.tracing.ActiveSpan;
import io.opentelemetry.api.trace.Tracer;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the reconciler gets rid of an instance that no longer fits its Proxy before a successor is
 * made: the recorded one, through the provider that made it (the old one is deleted and polled
 * until gone; then status is written without a providerID, and the next pass creates), and one a
 * lost create left unrecorded ({@link UnrecordedInstances}). Never creates anything itself, so
 * two instances of one Proxy never run at once.
 *
 * <p>Thread-safe: holds no per-Proxy state.
 */
final class Replacement {

    private static final Logger LOG = LoggerFactory.getLogger(Replacement.class);

    private final ProviderRegistry providers;
    private final OperatorConfig.Reconcile intervals;
    private final Tracer tracer;

    Replacement(ProviderRegistry providers, OperatorConfig.Reconcile intervals, Tracer tracer) {
        this.providers = providers;
        this.intervals = intervals;
        this.tracer = tracer;
    }

    /**
     * Replaces the instance through {@code maker}, the provider that has it, which after an edit of
     * {@code spec.provider} is not the spec's; a maker gone from the config stops it.
     */
    @SuppressWarnings("try") // the span only has to be current while the step runs
    Outcome from(Pass pass, String maker, String providerID) throws ProviderException {
        Optional<Provider> from = providers.find(maker);
        if (from.isEmpty()) {
            pass.provisioned(false, Reason.UnknownProvider, "instance " + providerID + " was made by provider \""
                    + maker + "\", which is not in the providers config (configured: " + String.join(", ", providers.names())
                    + "); add it back so that the instance can be deleted, or set spec.provider to it again");
            return Outcome.after(intervals.driftPoll()); // nothing to do until the config changes: the resync
        }
        try (ActiveSpan span = ActiveSpan.start(tracer.spanBuilder("reconcile.replaceInstance"))) {
            return replace(pass, from.get());
        }
    }

    /**
     * Deletes what provider {@code maker} holds for this Proxy without a record in status.
     *
     * @return a requeue while something is going away; empty when nothing is (or the maker is
     *         gone from the config, and nothing can be asked)
     */
    Optional<Outcome> deleteUnrecorded(Pass pass, String maker) throws ProviderException {
        Optional<Provider> from = providers.find(maker);
        if (from.isEmpty()) {
            return Optional.empty();
        }
        List<String> going = UnrecordedInstances.delete(from.get(), pass.proxy().getMetadata().getUid());
        if (going.isEmpty()) {
            return Optional.empty();
        }
        pass.clearAddress();
        pass.provisioned(false, Reason.Replacing, "spec changed before instance " + String.join(", ", going)
                + " was recorded; deleting it to replace it");
        return Optional.of(Outcome.after(intervals.deletionPoll()));
    }

    /**
     * The spec's shape changed: delete the instance through {@code from}, the provider that made
     * it, and wait until it is gone; then record that no instance exists (status without a
     * providerID), and only in the next pass create its successor through the spec's provider, so
     * that two never run at once and status never names an instance under a maker that lacks it.
     */
    private Outcome replace(Pass pass, Provider from) throws ProviderException {
        String providerID = pass.status().providerID();
        try {
            from.get(providerID);
        } catch (ProviderException.NotFound e) {
            // The old ID leaves status before the successor is claimed: written together, a lost
            // status write would leave it under the new maker, which may refuse it for good.
            pass.stage(s -> s.withProviderID(null));
            pass.clearAddress();
            pass.provisioned(false, Reason.Replacing, "instance " + providerID + " is deleted; creating its successor");
            return Outcome.after(intervals.requeueNow());
        }
        from.delete(providerID);
        if (!pass.provisionedBecause(Reason.Replacing)) {
            LOG.atInfo().addKeyValue("providerID", providerID).log("Replacing instance; deleting the old one first");
            pass.event(ProxyEventReason.ReplacingInstance, "Spec, cloud-init or credentials changed; deleting instance "
                    + providerID + " to replace it");
        }
        pass.clearAddress();
        pass.provisioned(false, Reason.Replacing, "spec, cloud-init or credentials changed; deleting instance "
                + providerID + " to replace it");
        return Outcome.after(intervals.deletionPoll());
    }
}
