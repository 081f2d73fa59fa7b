package com.example.crawl.egress.proxy;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.runtime.ObjectChangedException;
import io.fabric8.kubernetes.api.model.Secret;
import java.util.Optional;

/**
 * The reconciler's view of the cluster: reads from the informer caches, writes to the API server
 * with optimistic concurrency (Proxies) or create-if-absent (the credentials Secrets it owns). Objects handed out are shared with the cache and must not be
 * changed; writes take a new object.
 *
 * <p>Thread-safe. Cache reads never block on the network; writes and {@link #readSecret} do. Any
 * failure other than those the methods name is a {@code KubernetesClientException}.
 */
public interface ProxyStore {

    /** The cached Proxy, or empty when it does not exist (any more). */
    Optional<Proxy> proxy(ProxyKey key);

    /**
     * A cached cloud-init Secret. Only Secrets labelled {@link Proxy#CLOUD_INIT_SECRET_LABEL}
     * {@code =true} are cached, so an unlabelled one is as absent as a missing one.
     */
    Optional<Secret> cloudInitSecret(String namespace, String name);

    /**
     * A cached credentials Secret. Only Secrets labelled {@link Proxy#CREDENTIALS_SECRET_LABEL}
     * {@code =true} are cached; the cache may lag behind a Secret created moments ago.
     */
    Optional<Secret> credentialsSecret(String namespace, String name);

    /**
     * Creates {@code secret} on the API server.
     *
     * @return the Secret as stored, or empty when one of that name exists already
     */
    Optional<Secret> createSecret(Secret secret);

    /** Reads a Secret from the API server, bypassing the cache; empty when it does not exist. */
    Optional<Secret> readSecret(String namespace, String name);

    /** Deletes a Secret on the API server; one that does not exist is already deleted. */
    void deleteSecret(String namespace, String name);

    /**
     * Replaces the Proxy's metadata and spec (finalizers, annotations) if its
     * {@code resourceVersion} is still current; the status in {@code proxy} is ignored.
     *
     * @return the object as the server stored it, with its new resourceVersion
     */
    Proxy update(Proxy proxy) throws ObjectChangedException;

    /**
     * Replaces the Proxy's status if its {@code resourceVersion} is still current; metadata and
     * spec in {@code proxy} are ignored.
     *
     * @return the object as the server stored it, with its new resourceVersion
     */
    Proxy updateStatus(Proxy proxy) throws ObjectChangedException;
}
