package com.example.crawl.egress.providerhealth;

import com.example.crawl.egress.api.ProviderHealth;
import com.example.crawl.egress.tracing.KubernetesCall;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.opentelemetry.api.trace.Tracer;
import java.net.HttpURLConnection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The {@link HealthStore} of a real cluster: every read is a request to the API server (a cached
 * read would need a cluster-wide informer and {@code watch} permission even when the operator
 * watches one namespace). Status is written as a full {@code PUT .../status} carrying the
 * {@code resourceVersion} of the read, so a write based on an outdated read is refused with 409
 * instead of undoing someone else's.
 *
 * <p>Each request is a client span ({@code k8s.providerhealths.get}, {@code .create},
 * {@code .updateStatus}, {@code .list}, {@code .delete}) when a span is current, which inside a
 * round the {@code providerhealth.check} span is; never a root span of its own.
 */
final class ClusterHealthStore implements HealthStore {

    private final KubernetesClient client;
    private final Tracer tracer;

    ClusterHealthStore(KubernetesClient client, Tracer tracer) {
        this.client = client;
        this.tracer = tracer;
    }

    @Override
    public Optional<ProviderHealth> get(String name) {
        return Optional.ofNullable(call("get", name,
                () -> client.resources(ProviderHealth.class).withName(name).get()));
    }

    @Override
    public ProviderHealth create(String name) throws Changed {
        ProviderHealth object = new ProviderHealth();
        object.setMetadata(new ObjectMetaBuilder().withName(name).withLabels(Map.of(MANAGED_LABEL, "true")).build());
        try {
            return call("create", name, () -> client.resource(object).create());
        } catch (KubernetesClientException e) {
            throw changedOr(e);
        }
    }

    @Override
    public ProviderHealth updateStatus(ProviderHealth object) throws Changed {
        try {
            return call("updateStatus", object.getMetadata().getName(), () -> client.resource(object).updateStatus());
        } catch (KubernetesClientException e) {
            throw changedOr(e);
        }
    }

    @Override
    public List<ProviderHealth> listOurs() {
        List<ProviderHealth> listed = call("list", "", () -> client.resources(ProviderHealth.class)
                .withLabel(MANAGED_LABEL, "true").list().getItems());
        // Filtered again: what is deleted must carry the label, whatever the server made of the selector.
        return listed.stream().filter(ClusterHealthStore::isOurs).toList();
    }

    @Override
    public void delete(String name) {
        // fabric8 answers a 404 with an empty list, not an exception: already gone is done.
        call("delete", name, () -> client.resources(ProviderHealth.class).withName(name).delete());
    }

    static boolean isOurs(ProviderHealth object) {
        Map<String, String> labels = object.getMetadata() == null ? null : object.getMetadata().getLabels();
        return labels != null && "true".equals(labels.get(MANAGED_LABEL));
    }

    /** Runs one API request in a client span, if a span is current. */
    private <T> T call(String verb, String name, Supplier<T> request) {
        return KubernetesCall.traced(tracer, "providerhealths", verb, "", name, request);
    }

    /** 409 and 404 mean "read again"; anything else is a real failure and propagates. */
    private static Changed changedOr(KubernetesClientException e) {
        if (e.getCode() == HttpURLConnection.HTTP_CONFLICT || e.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
            return new Changed(e.getStatus() != null && e.getStatus().getMessage() != null
                    ? e.getStatus().getMessage() : e.getMessage(), e);
        }
        throw e;
    }
}
