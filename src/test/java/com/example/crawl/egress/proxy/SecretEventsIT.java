package com.example.crawl.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.example.crawl.egress.api.CloudInit;
import com.example.crawl.egress.api.CredentialsSecret;
import com.example.crawl.egress.api.KubernetesSpec;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyCredentials;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.cache.ProxyInformers;
import com.example.crawl.egress.cache.ProxyKey;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Which Proxies a Secret event enqueues: {@link ProxyInformers}' own informers, label selectors,
 * Proxy index and handlers, started against the fabric8 mock API server (whose equality label
 * selectors filter watches as a real server's do), with a recording queue.
 *
 * <p>That nothing else was enqueued is judged by markers: after the actions under test, one Secret
 * of each kind that enqueues a known key is changed once, and each informer hands its watch's
 * events to the handlers in order, so once both marker keys have arrived every earlier Secret
 * event has been handled.
 */
class SecretEventsIT {

    private static final String NS = "crawl";
    private static final String ELSEWHERE = "elsewhere";
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final ProxyKey CLOUD_INIT_MARKER = new ProxyKey(NS, "marker");
    private static final ProxyKey CREDENTIALS_MARKER = new ProxyKey(NS, "marker-owner");

    private final List<ProxyKey> enqueued = new CopyOnWriteArrayList<>();
    private MockCluster cluster;
    private KubernetesClient client;
    private ProxyInformers informers;
    private int touches;

    @BeforeEach
    void start() throws Exception {
        cluster = MockCluster.start();
        client = cluster.client();
        proxy(NS, "p1", secretRef("init", "user-data"));
        proxy(NS, "p2", secretRef("init", "not-in-the-secret"));
        proxy(NS, "p3", secretRef("other", "user-data"));
        proxy(NS, "p4", new CloudInit("#cloud-config\n", null));
        proxy(NS, "p5", null);
        proxy(ELSEWHERE, "p1", secretRef("init", "user-data"));
        proxy(NS, CLOUD_INIT_MARKER.name(), secretRef("marker-init", "user-data"));
        informers = new ProxyInformers(client, "");
        informers.start(enqueued::add).get(30, TimeUnit.SECONDS);
        // Each Proxy's own ADDED event; once handled, the index holds it.
        awaitEnqueued(List.of(key(NS, "p1"), key(NS, "p2"), key(NS, "p3"), key(NS, "p4"), key(NS, "p5"),
                key(ELSEWHERE, "p1"), CLOUD_INIT_MARKER));
        enqueued.clear();
        cloudInitSecret(NS, "marker-init", true);
        credentialsSecret(NS, CREDENTIALS_MARKER.name(), true,
                owner("Proxy", Proxy.GROUP + "/" + Proxy.VERSION, CREDENTIALS_MARKER.name(), true));
        awaitEnqueued(List.of(CLOUD_INIT_MARKER, CREDENTIALS_MARKER));
    }

    @AfterEach
    void stop() {
        if (informers != null) {
            informers.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void shouldEnqueueEveryProxyOfTheNamespaceThatNamesACloudInitSecretWhicheverKeyItNames() {
        // p2 names a key the Secret lacks: it is enqueued all the same, to report that.
        assertEquals(keys(NS, "p1", NS, "p2"), enqueuedBy(() -> cloudInitSecret(NS, "init", true)));
    }

    @Test
    void shouldEnqueueTheProxiesOfACloudInitSecretWhenItChangesAndWhenItIsDeleted() {
        enqueuedBy(() -> cloudInitSecret(NS, "init", true));

        assertEquals(keys(NS, "p1", NS, "p2"), enqueuedBy(() -> client.secrets().inNamespace(NS).withName("init")
                .edit(s -> new SecretBuilder(s).addToData("user-data", "djogMg==").build())));
        assertEquals(keys(NS, "p1", NS, "p2"),
                enqueuedBy(() -> client.secrets().inNamespace(NS).withName("init").delete()));
    }

    @Test
    void shouldIgnoreAnUnlabelledCloudInitSecretUntilItIsLabelledAndTreatUnlabellingAsDeletion() {
        assertEquals(List.of(), enqueuedBy(() -> cloudInitSecret(NS, "init", false)));

        assertEquals(keys(NS, "p1", NS, "p2"),
                enqueuedBy(() -> label(NS, "init", Proxy.CLOUD_INIT_SECRET_LABEL, "true")));
        assertEquals(keys(NS, "p1", NS, "p2"),
                enqueuedBy(() -> label(NS, "init", Proxy.CLOUD_INIT_SECRET_LABEL, null)));
    }

    @Test
    void shouldEnqueueOnlyTheProxiesOfTheCloudInitSecretsOwnNamespace() {
        assertEquals(keys(ELSEWHERE, "p1"), enqueuedBy(() -> cloudInitSecret(ELSEWHERE, "init", true)));
    }

    @Test
    void shouldFollowAProxyThatStartsOrStopsNamingACloudInitSecret() {
        enqueuedBy(() -> cloudInitSecret(NS, "init", true));
        enqueued.clear();
        client.resources(Proxy.class).inNamespace(NS).withName("p3").edit(p -> {
            p.setSpec(spec(secretRef("init", "user-data")));
            return p;
        });
        client.resources(Proxy.class).inNamespace(NS).withName("p1").delete();
        awaitEnqueued(List.of(key(NS, "p3"), key(NS, "p1")));

        assertEquals(keys(NS, "p2", NS, "p3"), enqueuedBy(() -> client.secrets().inNamespace(NS).withName("init")
                .edit(s -> new SecretBuilder(s).addToData("user-data", "djogMw==").build())));
    }

    @Test
    void shouldEnqueueTheProxyThatControlsACredentialsSecretWhenItIsAddedChangedOrDeleted() {
        OwnerReference p1 = owner("Proxy", Proxy.GROUP + "/" + Proxy.VERSION, "p1", true);

        assertEquals(keys(NS, "p1"), enqueuedBy(() -> credentialsSecret(NS, "p1", true, p1)));
        assertEquals(keys(NS, "p1"), enqueuedBy(() -> client.secrets().inNamespace(NS)
                .withName(CredentialsSecret.name("p1")).edit(s -> new SecretBuilder(s).withData(Map.of()).build())));
        assertEquals(keys(NS, "p1"), enqueuedBy(() -> client.secrets().inNamespace(NS)
                .withName(CredentialsSecret.name("p1")).delete()));
        assertEquals(keys(ELSEWHERE, "p1"), enqueuedBy(() -> credentialsSecret(ELSEWHERE, "p1", true, p1)));
    }

    @Test
    void shouldIgnoreACredentialsSecretThatNoProxyControlsOrThatIsUnlabelled() {
        String api = Proxy.GROUP + "/" + Proxy.VERSION;
        assertEquals(List.of(), enqueuedBy(() -> {
            credentialsSecret(NS, "p1", true);
            credentialsSecret(NS, "p2", true, owner("Proxy", api, "p2", false));
            credentialsSecret(NS, "p3", true, owner("ProxyPool", api, "p3", true));
            credentialsSecret(NS, "p4", true, owner("Proxy", "example.org/v1", "p4", true));
            credentialsSecret(NS, "p5", false, owner("Proxy", api, "p5", true));
        }));
    }

    @Test
    void shouldHandOutTheCredentialsOfEachVersionOfTheSecretAsTheCacheHasIt() {
        Proxy p1 = new Proxy();
        p1.setMetadata(new ObjectMetaBuilder().withNamespace(NS).withName("p1").withUid("uid-of-p1").build());
        p1.setSpec(spec(null));
        String secret = CredentialsSecret.name("p1");
        credentialsSecret(NS, "p1", true, owner("Proxy", Proxy.GROUP + "/" + Proxy.VERSION, "p1", true));
        awaitCredentials(p1, Optional.of(new ProxyCredentials("u", "pw")));

        setPassword(secret, "cHcy"); // "pw2": the health engine's next probe must send it
        awaitCredentials(p1, Optional.of(new ProxyCredentials("u", "pw2")));
        setPassword(secret, "not base64!");
        awaitCredentials(p1, Optional.empty());
        setPassword(secret, "cHcz");
        awaitCredentials(p1, Optional.of(new ProxyCredentials("u", "pw3")));
        client.secrets().inNamespace(NS).withName(secret).delete();
        awaitCredentials(p1, Optional.empty());
    }

    // --- helpers ---

    private void setPassword(String secret, String encoded) {
        client.secrets().inNamespace(NS).withName(secret).edit(s -> new SecretBuilder(s).addToData("password", encoded)
                .build());
    }

    private void awaitCredentials(Proxy proxy, Optional<ProxyCredentials> expected) {
        try {
            MockCluster.await(WAIT, () -> informers.credentials(proxy).equals(expected));
        } catch (AssertionError e) {
            throw new AssertionError("credentials stayed " + informers.credentials(proxy).map(c -> c.username()
                    + ":" + c.password()) + ", expected " + expected, e);
        }
    }

    /**
     * The keys the informers enqueued while {@code actions} ran, sorted, the markers' left out;
     * returns once every Secret event the actions caused has been handled.
     */
    private List<ProxyKey> enqueuedBy(Runnable actions) {
        enqueued.clear();
        actions.run();
        touch("marker-init");
        touch(CredentialsSecret.name(CREDENTIALS_MARKER.name()));
        awaitEnqueued(List.of(CLOUD_INIT_MARKER, CREDENTIALS_MARKER));
        List<ProxyKey> seen = new ArrayList<>(enqueued);
        seen.removeIf(k -> k.equals(CLOUD_INIT_MARKER) || k.equals(CREDENTIALS_MARKER));
        seen.sort(Comparator.comparing(ProxyKey::toString));
        return seen;
    }

    private void awaitEnqueued(List<ProxyKey> keys) {
        try {
            MockCluster.await(WAIT, () -> enqueued.containsAll(keys));
        } catch (AssertionError e) {
            List<ProxyKey> missing = keys.stream().filter(k -> !enqueued.contains(k)).toList();
            throw new AssertionError("never enqueued: " + missing + " (enqueued: " + enqueued + ")", e);
        }
    }

    /** Changes an annotation of a marker Secret: one event, so none is left to arrive later. */
    private void touch(String name) {
        touches++;
        client.secrets().inNamespace(NS).withName(name).edit(s -> new SecretBuilder(s).editMetadata()
                .addToAnnotations("touched", Integer.toString(touches)).endMetadata().build());
    }

    private void proxy(String namespace, String name, CloudInit cloudInit) {
        Proxy p = new Proxy();
        p.setMetadata(new ObjectMetaBuilder().withNamespace(namespace).withName(name).build());
        p.setSpec(spec(cloudInit));
        client.resource(p).create();
    }

    private static ProxySpec spec(CloudInit cloudInit) {
        return new ProxySpec(null, "fake", null, null, null, cloudInit, null, null,
                new KubernetesSpec("squid:1", null), null, null);
    }

    private static CloudInit secretRef(String name, String key) {
        return new CloudInit(null, new CloudInit.SecretKeyRef(name, key));
    }

    /** Creates a cloud-init Secret (user data {@code v: 1}), labelled or not. */
    private void cloudInitSecret(String namespace, String name, boolean labelled) {
        Secret secret = new SecretBuilder().withNewMetadata().withNamespace(namespace).withName(name)
                .withLabels(labelled ? Map.of(Proxy.CLOUD_INIT_SECRET_LABEL, "true") : Map.of()).endMetadata()
                .addToData("user-data", "djogMQ==").build();
        client.resource(secret).create();
    }

    /** Creates a credentials Secret named for the Proxy {@code proxy}, labelled or not, with these owners. */
    private void credentialsSecret(String namespace, String proxy, boolean labelled, OwnerReference... owners) {
        Secret secret = new SecretBuilder().withNewMetadata().withNamespace(namespace)
                .withName(CredentialsSecret.name(proxy))
                .withLabels(labelled ? Map.of(Proxy.CREDENTIALS_SECRET_LABEL, "true") : Map.of())
                .withOwnerReferences(owners).endMetadata()
                .withType(CredentialsSecret.TYPE).addToData(Map.of("username", "dQ==", "password", "cHc=")).build();
        client.resource(secret).create();
    }

    /** Sets the label, or removes it when {@code value} is null. */
    private void label(String namespace, String name, String label, String value) {
        client.secrets().inNamespace(namespace).withName(name).edit(s -> {
            SecretBuilder b = new SecretBuilder(s);
            if (value == null) {
                b.editMetadata().removeFromLabels(label).endMetadata();
            } else {
                b.editMetadata().addToLabels(label, value).endMetadata();
            }
            return b.build();
        });
    }

    private static OwnerReference owner(String kind, String apiVersion, String name, boolean controller) {
        return new OwnerReferenceBuilder().withKind(kind).withApiVersion(apiVersion).withName(name)
                .withUid("uid-of-" + name).withController(controller).build();
    }

    private static ProxyKey key(String namespace, String name) {
        return new ProxyKey(namespace, name);
    }

    private static List<ProxyKey> keys(String... namespaceThenName) {
        List<ProxyKey> keys = new ArrayList<>();
        for (int i = 0; i < namespaceThenName.length; i += 2) {
            keys.add(key(namespaceThenName[i], namespaceThenName[i + 1]));
        }
        return keys;
    }
}
