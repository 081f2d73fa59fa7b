package com.example.crawl.egress.gc;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.tracing.KubernetesCall;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListOptions;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.StatusDetails;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.opentelemetry.api.trace.Tracer;
import java.net.HttpURLConnection;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * The {@link Cluster} of a real API server, through the operator's fabric8 client: lists page by
 * page ({@value #PAGE_SIZE} objects a page), in every namespace or in the one namespace the
 * operator is limited to.
 *
 * <p>Proxies are listed as generic resources and only their UIDs are read: a Proxy whose spec the
 * operator's records cannot read must not fail the list, or it would stop every sweep. Secret
 * deletes carry the listed {@code resourceVersion} as a precondition.
 *
 * <p>Each request is a client span ({@code k8s.proxies.list}, {@code k8s.secrets.list},
 * {@code k8s.secrets.delete}) under the current one, the sweep's.
 */
final class ApiCluster implements Cluster {

    static final long PAGE_SIZE = 500;
    private static final ResourceDefinitionContext PROXIES = new ResourceDefinitionContext.Builder()
            .withGroup(Proxy.GROUP).withVersion(Proxy.VERSION).withKind("Proxy").withPlural("proxies")
            .withNamespaced(true).build();

    private final KubernetesClient client;
    private final String namespace;
    private final Tracer tracer;

    /** @param namespace the one namespace to list in, or empty for all */
    ApiCluster(KubernetesClient client, String namespace, Tracer tracer) {
        this.client = Objects.requireNonNull(client, "client");
        this.namespace = Objects.requireNonNull(namespace, "namespace");
        this.tracer = Objects.requireNonNull(tracer, "tracer");
    }

    @Override
    public Set<String> liveProxyUids() throws Unavailable {
        Set<String> uids = new HashSet<>();
        for (GenericKubernetesResource proxy : all("proxies", "Proxies", options -> namespace.isEmpty()
                ? client.genericKubernetesResources(PROXIES).inAnyNamespace().list(options)
                : client.genericKubernetesResources(PROXIES).inNamespace(namespace).list(options))) {
            String uid = proxy.getMetadata() == null ? null : proxy.getMetadata().getUid();
            if (uid != null) {
                uids.add(uid);
            }
        }
        return uids;
    }

    @Override
    public List<OwnedSecret> secrets(OwnedSecret.Kind kind) throws Unavailable {
        String label = switch (kind) {
            case CREDENTIALS -> Proxy.CREDENTIALS_SECRET_LABEL;
            case POD_PASSWORD -> Proxy.MANAGED_LABEL;
        };
        List<OwnedSecret> out = new ArrayList<>();
        for (Secret s : all("secrets", kind.label() + " Secrets", options -> namespace.isEmpty()
                ? client.secrets().inAnyNamespace().withLabel(label, "true").list(options)
                : client.secrets().inNamespace(namespace).withLabel(label, "true").list(options))) {
            ObjectMeta meta = s.getMetadata();
            String owner = switch (kind) {
                case CREDENTIALS -> proxyOwner(meta.getOwnerReferences());
                case POD_PASSWORD -> labelled(meta.getLabels());
            };
            out.add(new OwnedSecret(kind, meta.getNamespace(), meta.getName(), owner, createdAt(meta),
                    meta.getResourceVersion()));
        }
        return out;
    }

    @Override
    public Deletion delete(OwnedSecret secret) throws Unavailable {
        try {
            List<StatusDetails> deleted = KubernetesCall.traced(tracer, "secrets", "delete", secret.namespace(),
                    secret.name(), () -> client.secrets().inNamespace(secret.namespace()).withName(secret.name())
                            .lockResourceVersion(secret.resourceVersion()).delete());
            return deleted.isEmpty() ? Deletion.GONE : Deletion.DELETED;
        } catch (KubernetesClientException e) {
            return switch (e.getCode()) {
                case HttpURLConnection.HTTP_NOT_FOUND -> Deletion.GONE;
                case HttpURLConnection.HTTP_CONFLICT -> Deletion.CHANGED;
                default -> throw new Unavailable("delete Secret " + secret.namespace() + "/" + secret.name() + ": "
                        + describe(e), e);
            };
        }
    }

    /** Every item of a paged list; one failed page fails the whole list. */
    private <T extends HasMetadata> List<T> all(String resource, String what,
            Function<ListOptions, ? extends KubernetesResourceList<T>> list) throws Unavailable {
        List<T> items = new ArrayList<>();
        String next = null;
        try {
            do {
                ListOptions options = new ListOptionsBuilder().withLimit(PAGE_SIZE).withContinue(next).build();
                KubernetesResourceList<T> page = KubernetesCall.traced(tracer, resource, "list", namespace, null,
                        () -> list.apply(options));
                items.addAll(page.getItems());
                next = page.getMetadata() == null ? null : page.getMetadata().getContinue();
            } while (next != null && !next.isEmpty());
        } catch (KubernetesClientException e) {
            throw new Unavailable("list " + what + " in " + (namespace.isEmpty() ? "all namespaces"
                    : "namespace " + namespace) + ": " + describe(e), e);
        }
        return items;
    }

    /** The UID of the Proxy a controller owner reference of ours names, or null. */
    private static String proxyOwner(List<OwnerReference> refs) {
        if (refs == null) {
            return null;
        }
        return refs.stream()
                .filter(r -> "Proxy".equals(r.getKind()) && Boolean.TRUE.equals(r.getController())
                        && r.getApiVersion() != null && r.getApiVersion().startsWith(Proxy.GROUP + "/"))
                .map(OwnerReference::getUid).filter(Objects::nonNull).findFirst().orElse(null);
    }

    private static String labelled(Map<String, String> labels) {
        return labels == null ? null : labels.get(Proxy.OWNER_UID_LABEL);
    }

    private static Instant createdAt(ObjectMeta meta) {
        try {
            return meta.getCreationTimestamp() == null ? null : Instant.parse(meta.getCreationTimestamp());
        } catch (DateTimeParseException e) {
            return null; // an age that cannot be read proves nothing
        }
    }

    private static String describe(KubernetesClientException e) {
        String message = e.getStatus() != null && e.getStatus().getMessage() != null ? e.getStatus().getMessage()
                : e.getMessage();
        return e.getCode() > 0 ? e.getCode() + " " + message : message;
    }
}
