package com.example.crawl.egress.cache;

import com.example.crawl.egress.api.TargetPolicy;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * The TargetPolicy informer (every namespace, or the one {@code --proxy-namespace} names). Every
 * add, change and delete, status writes included, hands the whole cached set to a listener, which
 * rebuilds what it derives from it: a policy's meaning depends on its namespace's other policies
 * (the older one keeps a host both claim), so a change of one is a change of the set.
 *
 * <p>Lifecycle: {@link #start} once; {@link #close} is idempotent. Reads never touch the network.
 */
public final class TargetPolicyInformer implements AutoCloseable {

    private final SharedIndexInformer<TargetPolicy> policies;
    private volatile CompletableFuture<Void> started = new CompletableFuture<>();

    /** @param namespace the one namespace to watch, or empty for all */
    public TargetPolicyInformer(KubernetesClient client, String namespace) {
        this.policies = namespace.isEmpty()
                ? client.resources(TargetPolicy.class).inAnyNamespace().runnableInformer(0)
                : client.resources(TargetPolicy.class).inNamespace(namespace).runnableInformer(0);
    }

    /**
     * Starts the informer; {@code changed} gets the cached set after every event, on the informer's
     * thread, and must not block.
     */
    public CompletableFuture<Void> start(Consumer<List<TargetPolicy>> changed) {
        policies.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(TargetPolicy policy) {
                changed.accept(policies());
            }

            @Override
            public void onUpdate(TargetPolicy before, TargetPolicy after) {
                changed.accept(policies());
            }

            @Override
            public void onDelete(TargetPolicy policy, boolean finalStateUnknown) {
                changed.accept(policies());
            }
        });
        started = policies.start().toCompletableFuture();
        return started;
    }

    /** Waits for the first list of policies. */
    public void awaitSynced(Duration timeout, String api) throws ProxyInformers.NotSynced, InterruptedException {
        try {
            started.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw ProxyInformers.notSynced("cannot list TargetPolicies from " + api + " (" + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + e.getMessage())
                    + "); is the TargetPolicy CRD installed and the RBAC granted?");
        }
    }

    public boolean hasSynced() {
        return policies.hasSynced();
    }

    /** Every cached policy. */
    public List<TargetPolicy> policies() {
        return policies.getStore().list();
    }

    public Optional<TargetPolicy> policy(PolicyKey key) {
        return Optional.ofNullable(policies.getStore().getByKey(key.toString()));
    }

    @Override
    public void close() {
        policies.close();
    }
}
