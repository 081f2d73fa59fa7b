package com.example.crawl.egress.cache;

import com.example.crawl.egress.api.ProxyPool;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The ProxyPool informer (every namespace, or the one {@code --proxy-namespace} names), and the
 * events that put pool keys on the pool controller's queue: a pool added, deleted or changed in
 * anything but its status, at once; and any change of a member Proxy the controller reads, its
 * conditions included, through {@link ProxyInformers#observePoolMembers}, since a member turning
 * Ready or Unhealthy is what the controller waits for, batched for {@link #MEMBER_BATCH}.
 *
 * <p>Lifecycle: {@link #start} once; {@link #close} is idempotent. Reads never touch the network.
 */
public final class PoolInformer implements AutoCloseable {

    private final SharedIndexInformer<ProxyPool> pools;
    private final ProxyInformers proxies;
    private volatile CompletableFuture<Void> started = new CompletableFuture<>();

    /** @param namespace the one namespace to watch, or empty for all */
    public PoolInformer(KubernetesClient client, String namespace, ProxyInformers proxies) {
        this.pools = namespace.isEmpty()
                ? client.resources(ProxyPool.class).inAnyNamespace().runnableInformer(0)
                : client.resources(ProxyPool.class).inNamespace(namespace).runnableInformer(0);
        this.proxies = proxies;
    }

    /**
     * How long a member's change waits before it queues its pool's pass, so that the changes of a
     * roll or a scale, which come by the dozen a second, make one pass rather than one each; the
     * changes that come in the meantime join the same pass. A pass reads every member, so passes
     * one per change made a roll's cost grow with the square of the pool (docs/decisions.md).
     */
    public static final Duration MEMBER_BATCH = Duration.ofMillis(100);

    /**
     * Registers the handlers and starts the pool informer: a pool's own change goes to {@code
     * enqueue} at once, a member's to {@code enqueueAfter} with {@link #MEMBER_BATCH}. Call before
     * {@link ProxyInformers#start}, so that the members' first list enqueues their pools.
     */
    public CompletableFuture<Void> start(Consumer<PoolKey> enqueue, BiConsumer<PoolKey, Duration> enqueueAfter) {
        proxies.observePoolMembers((namespace, name) ->
                enqueueAfter.accept(new PoolKey(namespace, name), MEMBER_BATCH));
        pools.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(ProxyPool pool) {
                enqueue.accept(PoolKey.of(pool));
            }

            @Override
            public void onUpdate(ProxyPool before, ProxyPool after) {
                if (!onlyStatusChanged(before, after)) {
                    enqueue.accept(PoolKey.of(after));
                }
            }

            @Override
            public void onDelete(ProxyPool pool, boolean finalStateUnknown) {
                enqueue.accept(PoolKey.of(pool));
            }
        });
        started = pools.start().toCompletableFuture();
        return started;
    }

    /** Waits for the first list of pools. */
    public void awaitSynced(Duration timeout, String api) throws ProxyInformers.NotSynced, InterruptedException {
        try {
            started.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw ProxyInformers.notSynced("cannot list ProxyPools from " + api + " (" + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + e.getMessage())
                    + "); is the ProxyPool CRD installed and the RBAC granted?");
        }
    }

    public boolean hasSynced() {
        return pools.hasSynced();
    }

    public Optional<ProxyPool> pool(PoolKey key) {
        return Optional.ofNullable(pools.getStore().getByKey(key.toString()));
    }

    static boolean onlyStatusChanged(ProxyPool before, ProxyPool after) {
        ObjectMeta a = before.getMetadata();
        ObjectMeta b = after.getMetadata();
        return Objects.equals(a.getGeneration(), b.getGeneration())
                && Objects.equals(a.getDeletionTimestamp(), b.getDeletionTimestamp())
                && Objects.equals(a.getFinalizers(), b.getFinalizers())
                && Objects.equals(a.getUid(), b.getUid())
                && Objects.equals(before.getSpec(), after.getSpec());
    }

    @Override
    public void close() {
        pools.close();
    }
}
