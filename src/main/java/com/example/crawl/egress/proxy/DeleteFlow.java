package com.example.crawl.egress.proxy;

import com.example.crawl.egress.api.CredentialsSecret;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.Reason;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.provider.Provider;
import com.example.crawl.egress.provider.ProviderException;
import com.example.crawl.egress.provider.ProviderRegistry;
import com.example.crawl.egress.runtime.ObjectChangedException;
import com.example.crawl.egress.runtime.Outcome;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What happens once a Proxy is being deleted: delete its instance, wait until the provider no
 * longer knows it, delete the Proxy's credentials Secret, then release the finalizer so that the
 * API server removes the object. The Secret goes even though its owner reference would have
 * Kubernetes remove it: local mode's API server runs no garbage collector, and the credentials of
 * an instance that is gone have no use.
 *
 * <p>Deletion never gives up by itself. A permanent provider error is retried with backoff like
 * any other, because dropping the finalizer on "permission denied" would leak a running
 * instance; {@link Proxy#SKIP_CLEANUP_ANNOTATION} is the way out a human takes, and works even
 * when the provider is gone from the config. When {@code get} fails for good, {@code delete} is
 * still called: it is idempotent and may succeed where {@code get} cannot, and once it has, the
 * finalizer is released. With no instance recorded, what a lost create may have left is found by
 * listing ({@link UnrecordedInstances}) and deleted first.
 */
final class DeleteFlow {

    private static final Logger LOG = LoggerFactory.getLogger(DeleteFlow.class);

    private final ProviderRegistry providers;
    private final ProxyStore store;
    private final OperatorConfig.Reconcile intervals;

    DeleteFlow(ProviderRegistry providers, ProxyStore store, OperatorConfig.Reconcile intervals) {
        this.providers = providers;
        this.store = store;
        this.intervals = intervals;
    }

    Outcome run(Pass pass) throws ObjectChangedException {
        if (!pass.hasFinalizer()) {
            return Outcome.DONE;
        }
        String providerID = pass.status().providerID();
        if ("true".equals(pass.annotation(Proxy.SKIP_CLEANUP_ANNOTATION))) {
            LOG.atWarn().addKeyValue("providerID", providerID)
                    .log("Skipping cleanup as annotated; the instance is abandoned");
            if (providerID != null) {
                pass.event(ProxyEventReason.InstanceAbandoned, "Deleted with " + Proxy.SKIP_CLEANUP_ANNOTATION
                        + "=true; instance " + providerID + " is left running and no longer managed");
            }
            release(pass);
            return Outcome.DONE;
        }
        if (providerID == null) {
            return unrecorded(pass);
        }
        String name = pass.instanceProvider();
        Optional<Provider> provider = providers.find(name);
        if (provider.isEmpty()) {
            String message = "cannot delete instance " + providerID + ": provider \"" + name
                    + "\" is not in the providers config; annotate " + Proxy.SKIP_CLEANUP_ANNOTATION
                    + "=true to abandon it";
            pass.provisioned(false, Reason.Deleting, message);
            return new Outcome.Failed(message, null);
        }
        try {
            return deleteInstance(pass, provider.get(), providerID);
        } catch (ProviderException e) {
            String message = "deleting instance " + providerID + " failed (" + e.kind() + "): " + e.getMessage();
            pass.provisioned(false, Reason.Deleting, message);
            return new Outcome.Failed(message, e);
        }
    }

    /**
     * No instance recorded. A Proxy that claimed a shape (the spec-hash annotation) may still have
     * one, made by a pass whose status write was lost: it is looked for by listing the maker and
     * deleted before the release. A maker gone from the config cannot be asked, and releases.
     */
    private Outcome unrecorded(Pass pass) throws ObjectChangedException {
        Optional<Provider> maker = pass.annotation(Proxy.SPEC_HASH_ANNOTATION) == null ? Optional.empty()
                : providers.find(pass.instanceProvider());
        if (maker.isPresent()) {
            List<String> going;
            try {
                going = UnrecordedInstances.delete(maker.get(), pass.proxy().getMetadata().getUid());
            } catch (ProviderException e) {
                String message = "looking for an unrecorded instance failed (" + e.kind() + "): " + e.getMessage();
                pass.provisioned(false, Reason.Deleting, message);
                return new Outcome.Failed(message, e);
            }
            if (!going.isEmpty()) {
                pass.provisioned(false, Reason.Deleting, "deleting instance " + String.join(", ", going)
                        + ", made without a record");
                return Outcome.after(intervals.deletionPoll());
            }
        }
        release(pass);
        return Outcome.DONE;
    }

    /**
     * Deletes the Proxy's credentials Secret (read from the API server, so that one created
     * moments ago is not missed by a lagging cache; only when the Proxy owns it), then releases
     * the finalizer.
     */
    private void release(Pass pass) throws ObjectChangedException {
        Proxy proxy = pass.proxy();
        String namespace = proxy.getMetadata().getNamespace();
        String name = CredentialsSecret.name(proxy.getMetadata().getName());
        if (store.readSecret(namespace, name).filter(s -> CredentialsSecret.ownedBy(s, proxy.getMetadata().getUid()))
                .isPresent()) {
            store.deleteSecret(namespace, name);
        }
        pass.removeFinalizer();
    }

    private Outcome deleteInstance(Pass pass, Provider provider, String providerID)
            throws ProviderException, ObjectChangedException {
        try {
            provider.get(providerID);
        } catch (ProviderException.NotFound e) {
            LOG.atInfo().addKeyValue("providerID", providerID).log("Instance deleted; releasing the object");
            pass.event(ProxyEventReason.InstanceDeleted, "Deleted instance " + providerID);
            release(pass);
            return Outcome.DONE;
        } catch (ProviderException.Permanent e) {
            provider.delete(providerID);
            LOG.atWarn().addKeyValue("providerID", providerID).addKeyValue("error", e.getMessage())
                    .log("Instance state unreadable, but delete succeeded; releasing the object");
            pass.event(ProxyEventReason.InstanceDeleted, "Deleted instance " + providerID + " (its state could not be read)");
            release(pass);
            return Outcome.DONE;
        }
        provider.delete(providerID);
        if (!pass.provisionedBecause(Reason.Deleting)) {
            LOG.atInfo().addKeyValue("providerID", providerID).log("Deleting instance");
        }
        pass.clearAddress();
        pass.provisioned(false, Reason.Deleting, "deleting instance " + providerID);
        return Outcome.after(intervals.deletionPoll());
    }
}
