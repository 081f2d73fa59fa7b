package com.example.crawl.egress.provider.kubernetes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.InstanceName;
import com.example.crawl.egress.config.ProviderConfig;
import com.example.crawl.egress.provider.CreateRequest;
import com.example.crawl.egress.provider.EgressPolicy;
import com.example.crawl.egress.provider.Instance;
import com.example.crawl.egress.provider.InstanceState;
import com.example.crawl.egress.provider.ProviderException;
import com.example.crawl.egress.provider.TestCredentials;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The pod provider against fabric8's mock API server, with the test writing what the kubelet would. */
class PodProviderIT {

    private static final ProviderConfig.Kubernetes OWN_NAMESPACE =
            new ProviderConfig.Kubernetes("", ProviderConfig.Kubernetes.DEFAULT_IMAGE);

    private PodApi api;
    private PodProvider provider;

    @BeforeEach
    void start() {
        api = PodApi.start();
        provider = new PodProvider(api.client(), OWN_NAMESPACE, EgressPolicy.DEFAULT, PodProvider.REQUEST_TIMEOUT,
                Clock.systemUTC());
    }

    @AfterEach
    void stop() {
        api.close();
    }

    private static CreateRequest request(String namespace, String proxyName, String uid) {
        return new CreateRequest(InstanceName.fromUid(uid), uid, namespace, proxyName, 3128, null, TestCredentials.ANY,
                null, null, null);
    }

    private static String podPath(String namespace, String name) {
        return "/api/v1/namespaces/" + namespace + "/pods/" + name;
    }

    @Test
    void shouldCreateAPodInTheProxysNamespaceAndReportItProvisioning() throws Exception {
        CreateRequest req = request("crawlers", "eu-1", "uid-1");

        Instance made = provider.create(req);

        assertEquals("namespaces/crawlers/pods/" + req.name(), made.providerID());
        assertEquals(req.name(), made.name());
        assertEquals("uid-1", made.ownerUid());
        assertEquals(InstanceState.Provisioning, made.state());
        assertNull(made.ip());
        assertNotNull(made.createdAt(), "from the pod's creationTimestamp");
        Pod stored = api.client().pods().inNamespace("crawlers").withName(req.name()).get();
        assertEquals(PodTemplate.labels(req), stored.getMetadata().getLabels());
        assertEquals(made, provider.get(made.providerID()));
    }

    @Test
    void shouldPutEveryPodInTheProvidersNamespaceWhenItHasOne() throws Exception {
        PodProvider central = new PodProvider(api.client(), new ProviderConfig.Kubernetes("proxies", "mirror/squid:6"), EgressPolicy.DEFAULT,
                PodProvider.REQUEST_TIMEOUT, Clock.systemUTC());

        Instance made = central.create(request("crawlers", "eu-1", "uid-1"));

        assertEquals("namespaces/proxies/pods/" + made.name(), made.providerID());
        Pod stored = api.client().pods().inNamespace("proxies").withName(made.name()).get();
        assertEquals("mirror/squid:6", stored.getSpec().getContainers().get(0).getImage());
        assertEquals("crawlers", stored.getMetadata().getLabels().get(PodTemplate.PROXY_NAMESPACE_LABEL));
    }

    @Test
    void shouldFollowThePodThroughItsPhasesAsTheKubeletReportsThem() throws Exception {
        Instance made = provider.create(request("crawlers", "eu-1", "uid-1"));

        api.writeStatus("crawlers", made.name(), "Pending", null);
        assertEquals(InstanceState.Provisioning, provider.get(made.providerID()).state());

        api.writeStatus("crawlers", made.name(), "Running", null);
        assertEquals(made.with(InstanceState.Provisioning, null), provider.get(made.providerID()),
                "Running without an address is still Provisioning");

        api.writeStatus("crawlers", made.name(), "Running", "10.12.0.7");
        assertEquals(made.with(InstanceState.Running, "10.12.0.7"), provider.get(made.providerID()));

        api.writeStatus("crawlers", made.name(), "Failed", "10.12.0.7");
        assertEquals(made.with(InstanceState.Stopped, null), provider.get(made.providerID()));
    }

    @Test
    void shouldDeleteThePodAndThenReportItNotFoundAndDeleteAgainQuietly() throws Exception {
        Instance made = provider.create(request("crawlers", "eu-1", "uid-1"));

        provider.delete(made.providerID());

        assertThrows(ProviderException.NotFound.class, () -> provider.get(made.providerID()));
        provider.delete(made.providerID());
        assertTrue(api.pods().isEmpty());
    }

    @Test
    void shouldReportAPodThatIsGoingAwayAsTerminated() throws Exception {
        Instance made = provider.create(request("crawlers", "eu-1", "uid-1"));
        // A finalizer keeps the pod visible after DELETE, as a real grace period does.
        Pod pod = api.client().pods().inNamespace("crawlers").withName(made.name()).get();
        api.client().pods().inNamespace("crawlers").resource(new PodBuilder(pod).editMetadata()
                .addToFinalizers("example.com/hold").endMetadata().build()).update();

        provider.delete(made.providerID());

        assertEquals(InstanceState.Terminated, provider.get(made.providerID()).state());
    }

    @Test
    void shouldAdoptItsOwnPodWhenCreateIsRepeated() throws Exception {
        CreateRequest req = request("crawlers", "eu-1", "uid-1");
        Instance first = provider.create(req);
        api.writeStatus("crawlers", first.name(), "Running", "10.12.0.7");

        Instance second = provider.create(req);

        assertEquals(first.with(InstanceState.Running, "10.12.0.7"), second);
        assertEquals(1, api.pods().size());
    }

    @Test
    void shouldRefuseToAdoptAPodOfTheSameNameThatBelongsToAnotherOwner() throws Exception {
        CreateRequest mine = request("crawlers", "eu-1", "uid-1");
        CreateRequest theirs = new CreateRequest(mine.name(), "uid-2", "crawlers", "eu-1", 3128, null,
                TestCredentials.ANY, null, null, null);
        provider.create(theirs);

        ProviderException.Permanent e = assertThrows(ProviderException.Permanent.class, () -> provider.create(mine));

        assertTrue(e.getMessage().contains("belongs to owner UID uid-2"), e.getMessage());
        assertEquals("uid-2", api.pods().get(0).getMetadata().getLabels().get(PodTemplate.OWNER_UID_LABEL));
    }

    @Test
    void shouldRefuseToAdoptAnUnlabelledPodOfTheSameName() {
        CreateRequest req = request("crawlers", "eu-1", "uid-1");
        api.client().pods().inNamespace("crawlers").resource(new PodBuilder().withNewMetadata().withName(req.name())
                .endMetadata().withNewSpec().addNewContainer().withName("x").withImage("x").endContainer().endSpec()
                .build()).create();

        ProviderException.Permanent e = assertThrows(ProviderException.Permanent.class, () -> provider.create(req));

        assertTrue(e.getMessage().contains("carries no crawl.example.com/owner-uid label"), e.getMessage());
    }

    @Test
    void shouldListOnlyManagedPodsInEveryNamespaceWithTheirOwners() throws Exception {
        Instance a = provider.create(request("crawlers", "eu-1", "uid-1"));
        Instance b = provider.create(request("research", "us-1", "uid-2"));
        api.client().pods().inNamespace("crawlers").resource(new PodBuilder().withNewMetadata().withName("web")
                .withLabels(Map.of("app", "web")).endMetadata().build()).create();

        List<Instance> listed = provider.listByTag().stream().sorted(Comparator.comparing(Instance::providerID)).toList();

        assertEquals(List.of(a, b), listed);
        assertEquals(List.of("uid-1", "uid-2"), listed.stream().map(Instance::ownerUid).toList());
    }

    @Test
    void shouldFailPermanentlyWhenTheApiForbidsTheCreate() {
        CreateRequest req = request("crawlers", "eu-1", "uid-1");
        api.failNext("POST", "/api/v1/namespaces/crawlers/pods", 403,
                "pods is forbidden: User \"system:serviceaccount:ops:operator\" cannot create resource \"pods\"");

        ProviderException.Permanent e = assertThrows(ProviderException.Permanent.class, () -> provider.create(req));

        assertTrue(e.getMessage().startsWith("create pod crawlers/" + req.name() + ": HTTP 403: pods is forbidden"),
                e.getMessage());
    }

    @Test
    void shouldFailPermanentlyWhenTheApiRefusesThePodAsInvalid() {
        api.failNext("POST", "/api/v1/namespaces/crawlers/pods", 422, "spec.containers[0].resources.limits: Invalid value");

        assertThrows(ProviderException.Permanent.class, () -> provider.create(request("crawlers", "eu-1", "uid-1")));
    }

    @Test
    void shouldRetryAfterServerErrorsOnEveryCall() throws Exception {
        CreateRequest req = request("crawlers", "eu-1", "uid-1");
        api.failNext("POST", "/api/v1/namespaces/crawlers/pods", 500, "etcdserver: request timed out");
        assertThrows(ProviderException.Transient.class, () -> provider.create(req));

        Instance made = provider.create(req);
        api.failNext("GET", podPath("crawlers", made.name()), 503, "unavailable");
        assertThrows(ProviderException.Transient.class, () -> provider.get(made.providerID()));
        api.failNext("DELETE", podPath("crawlers", made.name()), 500, "internal");
        assertThrows(ProviderException.Transient.class, () -> provider.delete(made.providerID()));
        api.failNext("GET", "/api/v1/pods", 429, "too many requests");
        assertThrows(ProviderException.Transient.class, () -> provider.listByTag());
        assertEquals(made, provider.get(made.providerID()), "each failure was used up, the pod is untouched");
    }

    @Test
    void shouldFailTheListingPermanentlyWhenForbidden() {
        api.failNext("GET", "/api/v1/pods", 403, "pods is forbidden: cannot list resource \"pods\" at the cluster scope");

        assertThrows(ProviderException.Permanent.class, () -> provider.listByTag());
    }

    @Test
    void shouldRefuseAProviderIdOfAnotherProvider() {
        assertThrows(ProviderException.Permanent.class, () -> provider.get("zones/eu/instances/proxy-x"));
        assertThrows(ProviderException.Permanent.class, () -> provider.delete("fake/proxy-x"));
    }

    @Test
    void shouldBoundEveryCallByItsRequestTimeout() throws Exception {
        try (BlackHole hole = BlackHole.open()) {
            PodProvider slow = new PodProvider(hole.client(), OWN_NAMESPACE, EgressPolicy.DEFAULT, Duration.ofMillis(300), Clock.systemUTC());

            long start = System.nanoTime();
            ProviderException.Transient e = assertThrows(ProviderException.Transient.class,
                    () -> slow.get("namespaces/crawlers/pods/proxy-x"));

            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertTrue(took.compareTo(Duration.ofSeconds(5)) < 0, "took " + took);
            assertTrue(e.getMessage().endsWith("no answer from the API server in time"), e.getMessage());
        }
    }
}
