package com.example.crawl.egress.pool;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyPool;
import com.example.crawl.egress.cache.PoolInformer;
import com.example.crawl.egress.cache.PoolKey;
import com.example.crawl.egress.cache.ProxyInformers;
import com.example.crawl.egress.runtime.ObjectChangedException;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;
import java.util.List;
import java.util.Optional;

/**
 * The {@link PoolStore} of a real cluster: reads from the informers' caches, writes with
 * full-object {@code PUT}s that carry the {@code resourceVersion} (409 means "read again"), as
 * {@link com.example.crawl.egress.proxy.ClusterProxyStore} does for Proxies.
 */
public final class ClusterPoolStore implements PoolStore {

    private final KubernetesClient client;
    private final PoolInformer pools;
    private final ProxyInformers proxies;

    public ClusterPoolStore(KubernetesClient client, PoolInformer pools, ProxyInformers proxies) {
        this.client = client;
        this.pools = pools;
        this.proxies = proxies;
    }

    @Override
    public Optional<ProxyPool> pool(PoolKey key) {
        return pools.pool(key);
    }

    @Override
    public Optional<ProxyPool> readPool(PoolKey key) {
        return Optional.ofNullable(client.resources(ProxyPool.class).inNamespace(key.namespace()).withName(key.name())
                .get());
    }

    @Override
    public List<Proxy> members(PoolKey key) {
        return proxies.poolMembers(key.namespace(), key.name());
    }

    @Override
    public Optional<Proxy> readProxy(String namespace, String name) {
        return Optional.ofNullable(client.resources(Proxy.class).inNamespace(namespace).withName(name).get());
    }

    @Override
    public boolean create(Proxy proxy) {
        try {
            client.resource(proxy).create();
            return true;
        } catch (KubernetesClientException e) {
            if (e.getCode() == HttpURLConnection.HTTP_CONFLICT) {
                return false;
            }
            throw e;
        }
    }

    @Override
    public void delete(String namespace, String name) {
        // fabric8 answers a 404 with an empty list rather than an exception: already gone is done.
        client.resources(Proxy.class).inNamespace(namespace).withName(name).delete();
    }

    @Override
    public Proxy update(Proxy proxy) throws ObjectChangedException {
        try {
            return client.resource(proxy).update();
        } catch (KubernetesClientException e) {
            throw ObjectChangedException.orRethrow(e);
        }
    }

    @Override
    public ProxyPool updateStatus(ProxyPool pool) throws ObjectChangedException {
        try {
            return client.resource(pool).updateStatus();
        } catch (KubernetesClientException e) {
            throw ObjectChangedException.orRethrow(e);
        }
    }
}
