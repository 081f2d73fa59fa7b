package com.example.crawl.egress.controller;

import com.example.crawl.egress.api.Proxy;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;
import java.util.Optional;

/**
 * The {@link ProxyStore} of a real cluster: reads from {@link ProxyInformers}' caches, writes with
 * full-object {@code PUT}s that carry the object's {@code resourceVersion}, so that the API server
 * refuses a write based on an outdated read (409) instead of silently undoing someone's change.
 * Merge patches are avoided on purpose: they carry no version and, against the fabric8 mock
 * server, do not behave as on a real API server.
 */
public final class ClusterProxyStore implements ProxyStore {

    private final KubernetesClient client;
    private final ProxyInformers informers;

    public ClusterProxyStore(KubernetesClient client, ProxyInformers informers) {
        this.client = client;
        this.informers = informers;
    }

    @Override
    public Optional<Proxy> proxy(ProxyKey key) {
        return informers.proxy(key);
    }

    @Override
    public Optional<Secret> cloudInitSecret(String namespace, String name) {
        return informers.secret(namespace, name);
    }

    @Override
    public Optional<Secret> credentialsSecret(String namespace, String name) {
        return informers.credentialsSecret(namespace, name);
    }

    @Override
    public Optional<Secret> createSecret(Secret secret) {
        try {
            return Optional.of(client.secrets().inNamespace(secret.getMetadata().getNamespace()).resource(secret).create());
        } catch (KubernetesClientException e) {
            if (e.getCode() == HttpURLConnection.HTTP_CONFLICT) {
                return Optional.empty();
            }
            throw e;
        }
    }

    @Override
    public Optional<Secret> readSecret(String namespace, String name) {
        return Optional.ofNullable(client.secrets().inNamespace(namespace).withName(name).get());
    }

    @Override
    public void deleteSecret(String namespace, String name) {
        // fabric8 answers a 404 with an empty list rather than an exception: already gone is done.
        client.secrets().inNamespace(namespace).withName(name).delete();
    }

    @Override
    public Proxy update(Proxy proxy) throws ObjectChangedException {
        try {
            return client.resource(proxy).update();
        } catch (KubernetesClientException e) {
            throw changedOr(e);
        }
    }

    @Override
    public Proxy updateStatus(Proxy proxy) throws ObjectChangedException {
        try {
            return client.resource(proxy).updateStatus();
        } catch (KubernetesClientException e) {
            throw changedOr(e);
        }
    }

    /** 409 and 404 mean "read again"; anything else is a real failure and propagates. */
    private static ObjectChangedException changedOr(KubernetesClientException e) {
        if (e.getCode() == HttpURLConnection.HTTP_CONFLICT || e.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
            return new ObjectChangedException(e.getStatus() != null && e.getStatus().getMessage() != null
                    ? e.getStatus().getMessage() : e.getMessage(), e);
        }
        throw e;
    }
}
