package com.example.crawl.egress.cache;

import com.example.crawl.egress.api.CloudInit;
import com.example.crawl.egress.api.CredentialsSecret;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyCredentials;
import com.example.crawl.egress.api.ProxyPool;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * The three informers the operator reads from: Proxies (in every namespace, or in the one
 * {@code --proxy-namespace} names), cloud-init Secrets and credentials Secrets, each kind of Secret
 * selected by its label ({@link Proxy#CLOUD_INIT_SECRET_LABEL}{@code =true},
 * {@link Proxy#CREDENTIALS_SECRET_LABEL}{@code =true}) so the operator never caches other Secrets.
 *
 * <p>Event handlers only turn events into keys: a Proxy event enqueues that Proxy; a cloud-init
 * Secret event enqueues every Proxy of the Secret's namespace whose {@code spec.cloudInit.secretRef}
 * names it (found through an index, not a scan); a credentials Secret event enqueues the Proxy
 * that owns it, so that deleting the Secret rotates the credentials at once. An update that changed only the status (our own
 * status write, typically) enqueues nothing: status is an output, and the next poll repairs a
 * status someone else overwrote. Besides, {@link #observe} hands every added or updated Proxy,
 * status changes included, to the health engine, which probes a new address at once.
 *
 * <p>Lifecycle: {@link #start} once; {@link #close} stops the informers and is idempotent.
 * Reads are thread-safe and never touch the network.
 */
public final class ProxyInformers implements AutoCloseable {

    private static final String BY_SECRET = "cloudInitSecret";
    private static final String BY_POOL = "pool";

    private final SharedIndexInformer<Proxy> proxies;
    private final ListedItemStore<Proxy> proxyItems = new ListedItemStore<>();
    private final SharedIndexInformer<Secret> secrets;
    private final SharedIndexInformer<Secret> credentials;
    private final Map<String, Read> reads = new ConcurrentHashMap<>(); // by namespace/name; see readOnce
    private volatile CompletableFuture<Void> started = new CompletableFuture<>();

    /** @param namespace the one namespace to watch, or empty for all */
    public ProxyInformers(KubernetesClient client, String namespace) {
        if (namespace.isEmpty()) {
            proxies = client.resources(Proxy.class).inAnyNamespace().runnableInformer(0);
            secrets = client.secrets().inAnyNamespace().withLabel(Proxy.CLOUD_INIT_SECRET_LABEL, "true")
                    .runnableInformer(0);
            credentials = client.secrets().inAnyNamespace().withLabel(Proxy.CREDENTIALS_SECRET_LABEL, "true")
                    .runnableInformer(0);
        } else {
            proxies = client.resources(Proxy.class).inNamespace(namespace).runnableInformer(0);
            secrets = client.secrets().inNamespace(namespace).withLabel(Proxy.CLOUD_INIT_SECRET_LABEL, "true")
                    .runnableInformer(0);
            credentials = client.secrets().inNamespace(namespace).withLabel(Proxy.CREDENTIALS_SECRET_LABEL, "true")
                    .runnableInformer(0);
        }
        proxies.itemStore(proxyItems);
        proxies.addIndexers(Map.of(BY_SECRET, ProxyInformers::secretRefs, BY_POOL, ProxyInformers::poolOwner));
    }

    /**
     * Registers the handlers that send keys to {@code enqueue}, then starts the informers.
     *
     * @return completes when every cache has synced
     */
    public CompletableFuture<Void> start(Consumer<ProxyKey> enqueue) {
        proxies.addEventHandler(new ProxyEvents(enqueue));
        secrets.addEventHandler(new SecretEvents(this::cloudInitUsers, enqueue));
        credentials.addEventHandler(new SecretEvents(ProxyInformers::credentialsOwner, enqueue));
        credentials.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Secret secret) {
                // read when first asked for
            }

            @Override
            public void onUpdate(Secret before, Secret after) {
                reads.remove(Cache.metaNamespaceKeyFunc(after));
            }

            @Override
            public void onDelete(Secret secret, boolean finalStateUnknown) {
                reads.remove(Cache.metaNamespaceKeyFunc(secret));
            }
        });
        started = CompletableFuture.allOf(proxies.start().toCompletableFuture(), secrets.start().toCompletableFuture(),
                credentials.start().toCompletableFuture());
        return started;
    }

    /**
     * Hands every Proxy the informer adds or updates, status-only changes included, to
     * {@code observer}. Call before {@link #start}. The observer runs on the informer's thread,
     * after the cache holds the new version, and must not block.
     */
    public void observe(Consumer<Proxy> observer) {
        proxies.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Proxy proxy) {
                observer.accept(proxy);
            }

            @Override
            public void onUpdate(Proxy before, Proxy after) {
                observer.accept(after);
            }

            @Override
            public void onDelete(Proxy proxy, boolean finalStateUnknown) {
                // a deleted Proxy is the next tick's to forget
            }
        });
    }

    /**
     * Hands the key of the ProxyPool that owns a Proxy (its controller owner reference) to
     * {@code owner} whenever that Proxy is added, deleted, or changed in anything the pool
     * controller reads ({@link ProxyChanges#samePoolView}: the controller counts Ready members and times
     * Unhealthy ones). A status write that
     * changes only latency, check time, egress address or a condition's message does not:
     * with 2,000 members those came by the dozen a second, each a pass over the pool; nor does a
     * finalizer, or a step of provisioning that leaves the member as Ready as it was. Call before
     * {@link #start}; {@code owner} runs on the informer's thread and must not block.
     */
    public void observePoolMembers(BiConsumer<String, String> owner) {
        proxies.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Proxy proxy) {
                notify(proxy);
            }

            @Override
            public void onUpdate(Proxy before, Proxy after) {
                if (!ProxyChanges.samePoolView(before, after)) {
                    notify(after);
                }
            }

            @Override
            public void onDelete(Proxy proxy, boolean finalStateUnknown) {
                notify(proxy);
            }

            private void notify(Proxy proxy) {
                poolOwner(proxy).forEach(key -> owner.accept(proxy.getMetadata().getNamespace(),
                        key.substring(key.indexOf('/') + 1)));
            }
        });
    }

    /**
     * The cached Proxies of {@code namespace} whose controller owner reference names the
     * ProxyPool {@code pool}, whatever its UID. Found through an index, not a scan.
     */
    public List<Proxy> poolMembers(String namespace, String pool) {
        return proxies.getIndexer().byIndex(BY_POOL, Cache.namespaceKeyFunc(namespace, pool));
    }

    /**
     * Waits for the first list of every cache; call after {@link #start}.
     *
     * @param api the API server's URL, for the message
     * @throws NotSynced when a list failed or did not come within {@code timeout}; one line that
     *                   names the API server and what to check
     */
    public void awaitSynced(Duration timeout, String api) throws NotSynced, InterruptedException {
        try {
            started.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() != null && e.getCause().getMessage() != null ? e.getCause() : rootOf(e);
            throw new NotSynced("cannot list Proxies, cloud-init and credentials Secrets from " + api + " ("
                    + cause.getClass().getSimpleName() + (cause.getMessage() == null ? "" : ": " + cause.getMessage())
                    + "); is the API server reachable, are the CRDs installed and the RBAC granted?");
        } catch (TimeoutException e) {
            throw new NotSynced("the Kubernetes API at " + api + " did not answer the first list within " + timeout);
        }
    }

    private static Throwable rootOf(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root;
    }

    /** The caches could not be filled; the operator cannot start. */
    public static final class NotSynced extends Exception {
        NotSynced(String message) {
            super(message);
        }
    }

    /** A {@link NotSynced} for another informer (the pool informer's), so that start fails the same way. */
    public static NotSynced notSynced(String message) {
        return new NotSynced(message);
    }

    /** Whether every cache has completed its first list: part of readiness. */
    public boolean hasSynced() {
        return proxies.hasSynced() && secrets.hasSynced() && credentials.hasSynced();
    }

    /** The cached Proxy of this key; never touches the network. */
    public Optional<Proxy> proxy(ProxyKey key) {
        return Optional.ofNullable(proxies.getStore().getByKey(key.toString()));
    }

    public Optional<Secret> secret(String namespace, String name) {
        return Optional.ofNullable(secrets.getStore().getByKey(Cache.namespaceKeyFunc(namespace, name)));
    }

    public Optional<Secret> credentialsSecret(String namespace, String name) {
        return Optional.ofNullable(credentials.getStore().getByKey(Cache.namespaceKeyFunc(namespace, name)));
    }

    /**
     * The credentials {@code proxy} demands, from the cache ({@link CredentialsSecret#find}); the
     * health engine probes with them and discovery hands them to a lease holder. Never blocks.
     */
    public Optional<ProxyCredentials> credentials(Proxy proxy) {
        return CredentialsSecret.find(proxy, this::credentialsSecret, this::readOnce);
    }

    /**
     * {@link CredentialsSecret#read(Secret, String, String)}, once per version of a Secret: the
     * cache hands out the same object until the Secret changes, and the health engine asks for
     * every Proxy's credentials every second (decoding them was half of its tick with 10,000
     * Proxies). An entry goes when its Secret leaves the cache.
     */
    private ProxyCredentials readOnce(Secret secret, String usernameKey, String passwordKey)
            throws CredentialsSecret.Invalid {
        String key = Cache.metaNamespaceKeyFunc(secret);
        Read last = reads.get(key);
        if (last == null || last.secret() != secret || !last.usernameKey().equals(usernameKey)
                || !last.passwordKey().equals(passwordKey)) {
            try {
                last = new Read(secret, usernameKey, passwordKey, CredentialsSecret.read(secret, usernameKey, passwordKey),
                        null);
            } catch (CredentialsSecret.Invalid e) {
                last = new Read(secret, usernameKey, passwordKey, null, e);
            }
            reads.put(key, last);
            if (credentials.getStore().getByKey(key) != secret) {
                reads.remove(key, last); // gone or replaced meanwhile: keep nothing its delete event may have missed
            }
        }
        if (last.invalid() != null) {
            throw last.invalid();
        }
        return last.credentials();
    }

    /** What {@link #readOnce} read from one version of a Secret, with the keys it read. */
    private record Read(Secret secret, String usernameKey, String passwordKey, ProxyCredentials credentials,
            CredentialsSecret.Invalid invalid) { }

    /** Whether {@code proxy} is lent with lease credentials ({@link CredentialsSecret#leaseScoped}). Never blocks. */
    public boolean leaseScoped(Proxy proxy) {
        return CredentialsSecret.leaseScoped(proxy, this::credentialsSecret);
    }

    /**
     * Every cached Proxy, as an immutable list that stays the same object until the cache changes
     * ({@link ListedItemStore}); the health engine and discovery list from here.
     */
    public List<Proxy> proxies() {
        return proxyItems.list();
    }

    @Override
    public void close() {
        proxies.close();
        secrets.close();
        credentials.close();
    }

    private static List<String> secretRefs(Proxy proxy) {
        CloudInit cloudInit = proxy.getSpec() == null ? null : proxy.getSpec().cloudInit();
        if (cloudInit == null || cloudInit.secretRef() == null || cloudInit.secretRef().name() == null) {
            return List.of();
        }
        return List.of(Cache.namespaceKeyFunc(proxy.getMetadata().getNamespace(), cloudInit.secretRef().name()));
    }

    /** {@code namespace/pool} of the ProxyPool a Proxy's controller owner reference names, if any. */
    private static List<String> poolOwner(Proxy proxy) {
        return ProxyPool.owning(proxy).map(r -> Cache.namespaceKeyFunc(proxy.getMetadata().getNamespace(), r.getName()))
                .stream().toList();
    }

    private record ProxyEvents(Consumer<ProxyKey> enqueue) implements ResourceEventHandler<Proxy> {
        @Override
        public void onAdd(Proxy proxy) {
            enqueue.accept(ProxyKey.of(proxy));
        }

        @Override
        public void onUpdate(Proxy before, Proxy after) {
            if (!ProxyChanges.onlyStatusChanged(before, after)) {
                enqueue.accept(ProxyKey.of(after));
            }
        }

        @Override
        public void onDelete(Proxy proxy, boolean finalStateUnknown) {
            enqueue.accept(ProxyKey.of(proxy));
        }
    }

    /** A Secret changed: the Proxies it concerns reconcile, whichever way it changed. */
    private record SecretEvents(Function<Secret, Stream<ProxyKey>> concerned, Consumer<ProxyKey> enqueue)
            implements ResourceEventHandler<Secret> {
        @Override
        public void onAdd(Secret secret) {
            concerned.apply(secret).forEach(enqueue);
        }

        @Override
        public void onUpdate(Secret before, Secret after) {
            concerned.apply(after).forEach(enqueue);
        }

        @Override
        public void onDelete(Secret secret, boolean finalStateUnknown) {
            concerned.apply(secret).forEach(enqueue);
        }
    }

    /** The Proxies of the cloud-init Secret's namespace whose {@code spec.cloudInit.secretRef} names it. */
    private Stream<ProxyKey> cloudInitUsers(Secret secret) {
        String key = Cache.namespaceKeyFunc(secret.getMetadata().getNamespace(), secret.getMetadata().getName());
        return proxies.getIndexer().byIndex(BY_SECRET, key).stream().map(ProxyKey::of);
    }

    /** The Proxy a credentials Secret's controller owner reference names: deleting it rotates the credentials. */
    private static Stream<ProxyKey> credentialsOwner(Secret secret) {
        List<OwnerReference> refs = secret.getMetadata().getOwnerReferences();
        return refs == null ? Stream.empty() : refs.stream()
                .filter(r -> "Proxy".equals(r.getKind()) && Boolean.TRUE.equals(r.getController())
                        && r.getApiVersion() != null && r.getApiVersion().startsWith(Proxy.GROUP + "/"))
                .map(r -> new ProxyKey(secret.getMetadata().getNamespace(), r.getName()));
    }
}
