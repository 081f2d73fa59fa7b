package com.example.crawl.egress.controller;

import com.example.crawl.egress.api.CloudInit;
import com.example.crawl.egress.api.Proxy;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The two informers the control loop reads from: Proxies (in every namespace, or in the one
 * {@code --proxy-namespace} names) and cloud-init Secrets, the latter selected by the label
 * {@link Proxy#CLOUD_INIT_SECRET_LABEL}{@code =true} so the operator never caches other Secrets.
 *
 * <p>Event handlers only turn events into keys: a Proxy event enqueues that Proxy, a Secret event
 * enqueues every Proxy of the Secret's namespace whose {@code spec.cloudInit.secretRef} names
 * it (found through an index, not a scan). An update that changed only the status (our own
 * status write, typically) enqueues nothing: status is an output, and the next poll repairs a
 * status someone else overwrote.
 *
 * <p>Lifecycle: {@link #start} once; {@link #close} stops both informers and is idempotent.
 * Reads are thread-safe and never touch the network.
 */
public final class ProxyInformers implements AutoCloseable {

    private static final String BY_SECRET = "cloudInitSecret";

    private final SharedIndexInformer<Proxy> proxies;
    private final SharedIndexInformer<Secret> secrets;

    /** @param namespace the one namespace to watch, or empty for all */
    public ProxyInformers(KubernetesClient client, String namespace) {
        if (namespace.isEmpty()) {
            proxies = client.resources(Proxy.class).inAnyNamespace().runnableInformer(0);
            secrets = client.secrets().inAnyNamespace().withLabel(Proxy.CLOUD_INIT_SECRET_LABEL, "true")
                    .runnableInformer(0);
        } else {
            proxies = client.resources(Proxy.class).inNamespace(namespace).runnableInformer(0);
            secrets = client.secrets().inNamespace(namespace).withLabel(Proxy.CLOUD_INIT_SECRET_LABEL, "true")
                    .runnableInformer(0);
        }
        proxies.addIndexers(Map.of(BY_SECRET, ProxyInformers::secretRefs));
    }

    /**
     * Registers the handlers that send keys to {@code enqueue}, then starts both informers.
     *
     * @return completes when both caches have synced
     */
    public CompletableFuture<Void> start(Consumer<ProxyKey> enqueue) {
        proxies.addEventHandler(new ProxyEvents(enqueue));
        secrets.addEventHandler(new SecretEvents(enqueue));
        return CompletableFuture.allOf(proxies.start().toCompletableFuture(), secrets.start().toCompletableFuture());
    }

    /** Whether both caches have completed their first list: part of readiness. */
    public boolean hasSynced() {
        return proxies.hasSynced() && secrets.hasSynced();
    }

    Optional<Proxy> proxy(ProxyKey key) {
        return Optional.ofNullable(proxies.getStore().getByKey(key.toString()));
    }

    Optional<Secret> secret(String namespace, String name) {
        return Optional.ofNullable(secrets.getStore().getByKey(Cache.namespaceKeyFunc(namespace, name)));
    }

    /** Every cached Proxy; the health engine and discovery list from here. */
    public List<Proxy> proxies() {
        return proxies.getStore().list();
    }

    @Override
    public void close() {
        proxies.close();
        secrets.close();
    }

    private static List<String> secretRefs(Proxy proxy) {
        CloudInit cloudInit = proxy.getSpec() == null ? null : proxy.getSpec().cloudInit();
        if (cloudInit == null || cloudInit.secretRef() == null || cloudInit.secretRef().name() == null) {
            return List.of();
        }
        return List.of(Cache.namespaceKeyFunc(proxy.getMetadata().getNamespace(), cloudInit.secretRef().name()));
    }

    /** Whether anything but status and resourceVersion changed between two versions. */
    static boolean onlyStatusChanged(Proxy before, Proxy after) {
        ObjectMeta a = before.getMetadata();
        ObjectMeta b = after.getMetadata();
        return Objects.equals(a.getGeneration(), b.getGeneration())
                && Objects.equals(a.getDeletionTimestamp(), b.getDeletionTimestamp())
                && Objects.equals(a.getFinalizers(), b.getFinalizers())
                && Objects.equals(a.getAnnotations(), b.getAnnotations())
                && Objects.equals(a.getLabels(), b.getLabels())
                && Objects.equals(before.getSpec(), after.getSpec());
    }

    private record ProxyEvents(Consumer<ProxyKey> enqueue) implements ResourceEventHandler<Proxy> {
        @Override
        public void onAdd(Proxy proxy) {
            enqueue.accept(ProxyKey.of(proxy));
        }

        @Override
        public void onUpdate(Proxy before, Proxy after) {
            if (!onlyStatusChanged(before, after)) {
                enqueue.accept(ProxyKey.of(after));
            }
        }

        @Override
        public void onDelete(Proxy proxy, boolean finalStateUnknown) {
            enqueue.accept(ProxyKey.of(proxy));
        }
    }

    private final class SecretEvents implements ResourceEventHandler<Secret> {
        private final Consumer<ProxyKey> enqueue;

        SecretEvents(Consumer<ProxyKey> enqueue) {
            this.enqueue = enqueue;
        }

        @Override
        public void onAdd(Secret secret) {
            users(secret);
        }

        @Override
        public void onUpdate(Secret before, Secret after) {
            users(after);
        }

        @Override
        public void onDelete(Secret secret, boolean finalStateUnknown) {
            users(secret);
        }

        private void users(HasMetadata secret) {
            String key = Cache.namespaceKeyFunc(secret.getMetadata().getNamespace(), secret.getMetadata().getName());
            proxies.getIndexer().byIndex(BY_SECRET, key).forEach(p -> enqueue.accept(ProxyKey.of(p)));
        }
    }
}
