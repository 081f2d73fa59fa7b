package com.example.crawl.egress.proxy;

import static com.example.crawl.egress.proxy.MockClusterIT.BOUND;
import static com.example.crawl.egress.proxy.MockClusterIT.NS;
import static com.example.crawl.egress.proxy.MockClusterIT.changed;
import static com.example.crawl.egress.proxy.MockClusterIT.proxy;
import static com.example.crawl.egress.proxy.MockClusterIT.spec;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.example.crawl.egress.api.Phase;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyStatus;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/** What informers see through the mock: the event stream the control loop turns into keys. */
class MockClusterEventsIT {

    private static final String LABEL = Proxy.CLOUD_INIT_SECRET_LABEL;

    @AutoClose
    private final MockCluster cluster = MockCluster.start();
    private final KubernetesClient client = cluster.client();

    /** Informer callbacks as {@code "add name"}, {@code "update name"}, {@code "delete name"}, in order. */
    static final class Events implements ResourceEventHandler<HasMetadata> {

        final List<String> seen = new CopyOnWriteArrayList<>();

        @Override
        public void onAdd(HasMetadata o) {
            seen.add("add " + o.getMetadata().getName());
        }

        @Override
        public void onUpdate(HasMetadata old, HasMetadata o) {
            seen.add("update " + o.getMetadata().getName());
        }

        @Override
        public void onDelete(HasMetadata o, boolean finalStateUnknown) {
            seen.add("delete " + o.getMetadata().getName());
        }
    }

    @Test
    void shouldTellAProxyInformerOfEveryChangeIncludingStatusAndTheDeletionMark() {
        client.resource(proxy("elsewhere", "before")).create();
        Events events = new Events();
        try (SharedIndexInformer<Proxy> informer = client.resources(Proxy.class).inAnyNamespace().inform(events)) {
            MockCluster.await(BOUND, informer::hasSynced);
            Proxy p = client.resource(proxy(NS, "p", Proxy.FINALIZER)).create();
            p = client.resource(changed(p, x -> x.setSpec(spec(4000)))).update();
            client.resource(changed(p, x -> x.setStatus(ProxyStatus.EMPTY.withPhase(Phase.Ready)))).updateStatus();
            client.resource(p).delete();
            client.resource(p).patch(PatchContext.of(PatchType.JSON), "[{\"op\":\"remove\",\"path\":\"/metadata/finalizers/0\"}]");

            MockCluster.await(BOUND, () -> events.seen.contains("delete p"));
            assertEquals(List.of("add before", "add p", "update p", "update p", "update p", "delete p"), events.seen);
            assertEquals(List.of("elsewhere/before"), informer.getIndexer().listKeys());
        }
    }

    @Test
    void gapReplaysEveryExistingObjectAsAddedToANewWatchWhateverItsResourceVersion() {
        client.resource(proxy(NS, "p")).create();
        String listVersion = client.resources(Proxy.class).inNamespace(NS).list().getMetadata().getResourceVersion();
        List<String> events = new CopyOnWriteArrayList<>();
        try (Watch w = client.resources(Proxy.class).inNamespace(NS).watch(listVersion, MockClusterIT.recorder(events))) {
            MockCluster.await(BOUND, () -> !events.isEmpty());
            assertEquals(List.of("ADDED p"), events, "a real server sends only changes after the list");
        }
    }

    @Test
    void shouldFilterASecretInformerByAnEqualityLabelSelector() {
        secret("a", "yes", "true");
        secret("b", "no", "false");
        secret("a", "unlabelled", null);
        Events events = new Events();
        try (SharedIndexInformer<Secret> informer = client.secrets().inAnyNamespace().withLabel(LABEL, "true")
                .inform(events)) {
            MockCluster.await(BOUND, informer::hasSynced);
            secret("b", "later", "true");
            relabel("b", "no", "true");
            client.secrets().inNamespace("a").withName("unlabelled").edit(s -> {
                s.setData(Map.of("user-data", "Iw=="));
                return s;
            });
            relabel("a", "yes", "false");

            MockCluster.await(BOUND, () -> events.seen.contains("delete yes"));
            assertEquals(List.of("add yes", "add later", "add no", "delete yes"), events.seen,
                    "relabelled in arrives as ADDED, relabelled out as DELETED, as on a real server");
            assertEquals(List.of("b/later", "b/no"), informer.getIndexer().listKeys().stream().sorted().toList());
        }
    }

    @Test
    void shouldFilterListsByEqualityAndExistenceSelectors() {
        secret("a", "yes", "true");
        secret("b", "no", "false");
        secret("a", "unlabelled", null);
        assertEquals(List.of("yes"), names(client.secrets().inAnyNamespace().withLabel(LABEL, "true").list().getItems()));
        assertEquals(List.of("no", "yes"), names(client.secrets().inAnyNamespace().withLabel(LABEL).list().getItems()));
        assertEquals(List.of("no", "unlabelled"),
                names(client.secrets().inAnyNamespace().withoutLabel(LABEL, "true").list().getItems()));
    }

    @Test
    void gapIgnoresSetBasedLabelSelectors() {
        secret("a", "yes", "true");
        secret("b", "no", "false");
        assertEquals(List.of("no", "yes"),
                names(client.secrets().inAnyNamespace().withLabelIn(LABEL, "true").list().getItems()),
                "a real server returns only yes");
    }

    private void secret(String namespace, String name, String label) {
        Map<String, String> labels = new HashMap<>();
        if (label != null) {
            labels.put(LABEL, label);
        }
        client.resource(new SecretBuilder().withNewMetadata().withNamespace(namespace).withName(name)
                .withLabels(labels).endMetadata().withStringData(Map.of("user-data", "#cloud-config")).build()).create();
    }

    private void relabel(String namespace, String name, String value) {
        client.secrets().inNamespace(namespace).withName(name).edit(s -> {
            s.getMetadata().getLabels().put(LABEL, value);
            return s;
        });
    }

    private static List<String> names(List<? extends HasMetadata> items) {
        return items.stream().map(o -> o.getMetadata().getName()).sorted().toList();
    }
}
