package com.example.crawl.egress.provider.kubernetes;

import com.example.crawl.egress.config.ProviderConfig;
import com.example.crawl.egress.provider.CheckCall;
import com.example.crawl.egress.provider.Checker;
import com.example.crawl.egress.provider.CreateRequest;
import com.example.crawl.egress.provider.EgressPolicy;
import com.example.crawl.egress.provider.Instance;
import com.example.crawl.egress.provider.SquidAuth;
import com.example.crawl.egress.provider.Provider;
import com.example.crawl.egress.provider.ProviderException;
import com.example.crawl.egress.provider.TargetStatus;
import io.fabric8.kubernetes.api.model.ListOptions;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.RequestConfigBuilder;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The {@code kubernetes} provider: one Squid pod per Proxy in this cluster ({@link PodTemplate}),
 * observed by {@code get} polls, never watched. providerIDs are
 * {@code namespaces/<namespace>/pods/<name>} ({@link PodId}); pods go to the provider's
 * {@code namespace} setting, or to the Proxy's own namespace when that is empty.
 *
 * <ul>
 *   <li>{@code create} of a pod that exists (409) adopts it when its owner-UID label is the
 *       request's, and fails {@code Permanent} when it belongs to someone else; then it makes sure
 *       the pod's password-file Secret ({@link PodTemplate#secret}) exists and belongs to this pod
 *       (the pod waits in {@code ContainerCreating} until it does);</li>
 *   <li>{@code get} maps the pod through {@link PodInstance}; a missing pod is {@code NotFound};</li>
 *   <li>{@code delete} removes the pod and its Secret; a missing one is already deleted; a deleted
 *       pod stays visible (Terminated) for its grace period;</li>
 *   <li>{@code listByTag} lists pods with the managed label in every namespace, 500 per page;</li>
 *   <li>{@code check} lists at most one of them (target {@code apiserver}): the verb and scope
 *       that listing and garbage collection need.</li>
 * </ul>
 *
 * <p>Errors are sorted by {@link ApiFailure#classify}. Every request is bounded by a request
 * timeout (10 s) on top of the client's connection timeout, and fabric8's own retries are off:
 * the reconciler's work queue retries with backoff, and fabric8's ten retries would stretch one
 * call past a minute. No owner reference ties a pod to its Proxy: the pod may live in another
 * namespace, and {@code skip-cleanup} must be able to leave it behind.
 *
 * <p>Thread-safe and stateless apart from the shared client; calls block the caller.
 */
public final class PodProvider implements Provider, Checker {

    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);
    static final String TARGET = "apiserver";
    private static final long PAGE_SIZE = 500;

    private final KubernetesClient client;
    private final String namespace;
    private final String image;
    private final EgressPolicy policy;
    private final Duration requestTimeout;
    private final Clock clock;
    private final SecureRandom random = new SecureRandom();

    /**
     * @param client         shared with the rest of the operator; this provider derives its own
     *                       request settings from it and never closes it
     * @param policy         where the pods' Squids may forward to
     * @param requestTimeout bound of each API request
     */
    PodProvider(KubernetesClient client, ProviderConfig.Kubernetes settings, EgressPolicy policy,
            Duration requestTimeout, Clock clock) {
        this.client = bounded(client, requestTimeout);
        this.namespace = Objects.requireNonNull(settings.namespace(), "namespace");
        this.image = Objects.requireNonNull(settings.image(), "image");
        this.policy = Objects.requireNonNull(policy, "policy");
        this.requestTimeout = requestTimeout;
        this.clock = clock;
    }

    /** The provider for a {@code kubernetes} entry of the providers config; calls nothing yet. */
    public static PodProvider create(ProviderConfig config, KubernetesClient client, EgressPolicy policy) {
        if (!(config.settings() instanceof ProviderConfig.Kubernetes settings)) {
            throw new IllegalArgumentException("not a kubernetes provider entry: " + config.name());
        }
        return new PodProvider(client, settings, policy, REQUEST_TIMEOUT, Clock.systemUTC());
    }

    /**
     * {@inheritDoc}
     *
     * <p>Ignores {@code req.cloudInit()}: a pod has no cloud-init.
     */
    @Override
    public Instance create(CreateRequest req) throws ProviderException {
        PodId id = new PodId(namespace.isEmpty() ? req.namespace() : namespace, req.name());
        Pod pod = PodTemplate.build(req, id.namespace(), image, policy);
        Pod created;
        try {
            created = client.pods().inNamespace(id.namespace()).resource(pod).create();
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409) {
                throw ApiFailure.classify("create pod " + id.namespace() + "/" + id.name(), e);
            }
            created = adopt(id, req.ownerUid());
        }
        ensureSecret(req, id, created.getMetadata().getUid());
        return PodInstance.of(created);
    }

    /**
     * Creates the pod's password-file Secret, or takes over one of the same name that an earlier
     * pod of this Proxy left (its owner reference names that pod, which Kubernetes' garbage
     * collector would otherwise act on). A Secret of that name without this Proxy's labels is
     * never touched.
     */
    private void ensureSecret(CreateRequest req, PodId id, String podUid) throws ProviderException {
        Secret wanted = PodTemplate.secret(req, id.namespace(), podUid, SquidAuth.files(req.credentials(), random));
        String what = "Secret " + id.namespace() + "/" + id.name();
        try {
            client.secrets().inNamespace(id.namespace()).resource(wanted).create();
            return;
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409) {
                throw ApiFailure.classify("create " + what, e);
            }
        }
        try {
            Secret existing = client.secrets().inNamespace(id.namespace()).withName(id.name()).get();
            if (existing == null) {
                throw new ProviderException.Transient(what + " existed on create but was gone when read back");
            }
            Map<String, String> labels = existing.getMetadata().getLabels();
            if (labels == null || !req.ownerUid().equals(labels.get(PodTemplate.OWNER_UID_LABEL))) {
                throw new ProviderException.Permanent(what + " already exists and is not this Proxy's ("
                        + req.ownerUid() + "); the pod cannot get its password file");
            }
            boolean current = existing.getMetadata().getOwnerReferences() != null && existing.getMetadata()
                    .getOwnerReferences().stream().anyMatch(r -> podUid.equals(r.getUid()));
            if (!current) {
                client.secrets().inNamespace(id.namespace()).resource(new SecretBuilder(wanted)
                        .editMetadata().withResourceVersion(existing.getMetadata().getResourceVersion()).endMetadata()
                        .build()).update();
            }
        } catch (KubernetesClientException e) {
            throw ApiFailure.classify("take over " + what, e);
        }
    }

    @Override
    public Instance get(String providerID) throws ProviderException {
        PodId id = PodId.parse(providerID);
        Pod pod = read(id);
        if (pod == null) {
            throw new ProviderException.NotFound("pod " + id.namespace() + "/" + id.name() + " not found");
        }
        return PodInstance.of(pod);
    }

    @Override
    public void delete(String providerID) throws ProviderException {
        PodId id = PodId.parse(providerID);
        try {
            // fabric8 answers a 404 with an empty list rather than an exception: already gone is done.
            client.pods().inNamespace(id.namespace()).withName(id.name()).delete();
            // Its owner reference would have Kubernetes remove it too, but not at once, and a
            // replacement pod of the same name must not find the old one's password file.
            client.secrets().inNamespace(id.namespace()).withName(id.name()).delete();
        } catch (KubernetesClientException e) {
            throw ApiFailure.classify("delete pod " + id.namespace() + "/" + id.name(), e);
        }
    }

    @Override
    public List<Instance> listByTag() throws ProviderException {
        List<Instance> instances = new ArrayList<>();
        String next = null;
        try {
            do {
                PodList page = managedPods(client, new ListOptionsBuilder().withLimit(PAGE_SIZE).withContinue(next).build());
                page.getItems().forEach(p -> instances.add(PodInstance.of(p)));
                next = page.getMetadata() == null ? null : page.getMetadata().getContinue();
            } while (next != null && !next.isEmpty());
        } catch (KubernetesClientException e) {
            // One failed page fails the whole listing: what GC does not see, it cannot judge.
            throw ApiFailure.classify("list managed pods in all namespaces", e);
        }
        return List.copyOf(instances);
    }

    /**
     * Lists at most one managed pod in all namespaces, a {@link CheckCall} waited for no later
     * than {@code deadline}; the request itself is bounded by the same time, so an
     * abandoned one ends too. Target {@code apiserver}; reasons as {@link ApiFailure#checkReason}.
     */
    @Override
    public List<TargetStatus> check(Instant deadline) {
        Map<String, String> details = Map.of("namespace", namespace.isEmpty() ? "(each Proxy's own)" : namespace);
        String what = "list managed pods in all namespaces";
        CheckCall.Work<PodList> onePod = left -> managedPods(
                bounded(client, left.compareTo(requestTimeout) < 0 ? left : requestTimeout),
                new ListOptionsBuilder().withLimit(1L).build());
        return List.of(CheckCall.start("kubernetes-check", deadline, clock, onePod).await(TARGET, what, details,
                pods -> TargetStatus.ready(TARGET, details), cause -> TargetStatus.notReady(TARGET,
                        ApiFailure.checkReason(cause), what + ": " + ApiFailure.describe(cause), details)));
    }

    /** The existing pod behind a 409, if it is this owner's; a pod of another owner is never adopted. */
    private Pod adopt(PodId id, String ownerUid) throws ProviderException {
        Pod existing = read(id);
        if (existing == null) {
            throw new ProviderException.Transient("pod " + id.namespace() + "/" + id.name()
                    + " already existed on create but was gone when read back");
        }
        Instance instance = PodInstance.of(existing);
        if (!ownerUid.equals(instance.ownerUid())) {
            throw new ProviderException.Permanent("pod " + id.namespace() + "/" + id.name() + " already exists and "
                    + (instance.ownerUid() == null ? "carries no " + PodTemplate.OWNER_UID_LABEL + " label"
                    : "belongs to owner UID " + instance.ownerUid()) + ", not to this Proxy (" + ownerUid + ")");
        }
        return existing;
    }

    /** The pod, or null when it does not exist. */
    private Pod read(PodId id) throws ProviderException {
        try {
            return client.pods().inNamespace(id.namespace()).withName(id.name()).get();
        } catch (KubernetesClientException e) {
            throw ApiFailure.classify("read pod " + id.namespace() + "/" + id.name(), e);
        }
    }

    /** Pods with the managed label in every namespace; an equality selector, which every server honours. */
    private static PodList managedPods(KubernetesClient client, ListOptions options) {
        return client.pods().inAnyNamespace().withLabel(PodTemplate.MANAGED_LABEL, "true").list(options);
    }

    /**
     * A view of {@code client} whose requests time out after {@code timeout} and are not retried.
     * It shares the HTTP client and must not be closed: its owner closes the original.
     */
    private static KubernetesClient bounded(KubernetesClient client, Duration timeout) {
        int millis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
        return client.newClient(new RequestConfigBuilder(client.getConfiguration().getRequestConfig())
                .withRequestTimeout(millis).withRequestRetryBackoffLimit(0).build()).adapt(KubernetesClient.class);
    }
}
