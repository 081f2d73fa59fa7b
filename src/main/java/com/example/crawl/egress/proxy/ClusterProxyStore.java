package com.example.crawl.egress.proxy;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.cache.ProxyInformers;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.runtime.ObjectChangedException;
import com.example.crawl.egress.tracing.KubernetesCall;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.opentelemetry.api.trace.Tracer;
import java.net.HttpURLConnection;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The {@link ProxyStore} of a real cluster: reads from {@link ProxyInformers}' caches, writes with
 * full-object {@code PUT}s that carry the object's {@code resourceVersion}, so that the API server
 * refuses a write based on an outdated read (409) instead of silently undoing someone's change.
 * Merge patches are avoided on purpose: they carry no version and, against the fabric8 mock
 * server, do not behave as on a real API server.
 *
 * <p>Each request to the API server is a client span ({@code k8s.proxies.update},
 * {@code k8s.proxies.updateStatus}, {@code k8s.secrets.create}, {@code k8s.secrets.get},
 * {@code k8s.secrets.delete}) with {@code k8s.namespace.name} and {@code k8s.object.name}, and on
 * failure the HTTP status as {@code error.type}. Only as the child of a span already current:
 * these calls never start a trace. The API server ignores {@code traceparent}, and fabric8 sends
 * none, so the spans are leaves. Cache reads make no span.
 */
public final class ClusterProxyStore implements ProxyStore {

    private final KubernetesClient client;
    private final ProxyInformers informers;
    private final Tracer tracer;

    /** @param tracer makes the client span of each write and read that goes to the API server */
    public ClusterProxyStore(KubernetesClient client, ProxyInformers informers, Tracer tracer) {
        this.client = client;
        this.informers = informers;
        this.tracer = tracer;
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
            String namespace = secret.getMetadata().getNamespace();
            String name = secret.getMetadata().getName();
            return Optional.of(KubernetesCall.traced(tracer, "secrets", "create", namespace, name,
                    () -> client.secrets().inNamespace(namespace).resource(secret).create()));
        } catch (KubernetesClientException e) {
            if (e.getCode() == HttpURLConnection.HTTP_CONFLICT) {
                return Optional.empty();
            }
            throw e;
        }
    }

    @Override
    public Optional<Secret> readSecret(String namespace, String name) {
        return Optional.ofNullable(KubernetesCall.traced(tracer, "secrets", "get", namespace, name,
                () -> client.secrets().inNamespace(namespace).withName(name).get()));
    }

    @Override
    public void deleteSecret(String namespace, String name) {
        // fabric8 answers a 404 with an empty list rather than an exception: already gone is done.
        KubernetesCall.traced(tracer, "secrets", "delete", namespace, name,
                () -> client.secrets().inNamespace(namespace).withName(name).delete());
    }

    @Override
    public Proxy update(Proxy proxy) throws ObjectChangedException {
        try {
            return proxies("update", proxy, () -> client.resource(proxy).update());
        } catch (KubernetesClientException e) {
            throw ObjectChangedException.orRethrow(e);
        }
    }

    @Override
    public Proxy updateStatus(Proxy proxy) throws ObjectChangedException {
        try {
            return proxies("updateStatus", proxy, () -> client.resource(proxy).updateStatus());
        } catch (KubernetesClientException e) {
            throw ObjectChangedException.orRethrow(e);
        }
    }

    private <T> T proxies(String verb, Proxy proxy, Supplier<T> request) {
        return KubernetesCall.traced(tracer, "proxies", verb, proxy.getMetadata().getNamespace(),
                proxy.getMetadata().getName(), request);
    }
}
