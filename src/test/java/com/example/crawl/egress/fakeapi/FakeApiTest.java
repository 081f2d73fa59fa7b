package com.example.crawl.egress.fakeapi;

import static com.example.crawl.egress.fakeapi.FakeApi.POOL;
import static com.example.crawl.egress.fakeapi.FakeApi.PROXY;
import static com.example.crawl.egress.fakeapi.FakeApi.SECRET;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.Conditions;
import com.example.crawl.egress.api.Phase;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyPool;
import com.example.crawl.egress.api.ProxyPoolSpec;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.ProxyStatus;
import com.example.crawl.egress.cache.PoolKey;
import com.example.crawl.egress.clock.FakeClock;
import com.example.crawl.egress.fakeapi.FakeApi.Change;
import com.example.crawl.egress.fakeapi.FakeApi.CreateFault;
import com.example.crawl.egress.runtime.ObjectChangedException;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The API rules {@link FakeApi} states, each once. */
class FakeApiTest {

    private static final String NS = "crawl";
    private static final ProxySpec SPEC = new ProxySpec(null, "fake", null, Map.of("region", "eu"), null, null, null,
            null, null, null, null);
    private static final ProxySpec OTHER_SPEC = new ProxySpec(null, "other", null, Map.of("region", "eu"), null, null,
            null, null, null, null, null);

    private final FakeClock clock = new FakeClock();
    private final FakeApi api = new FakeApi(clock);

    private Proxy create(String name) {
        return api.create(FakeApi.proxy(NS, name, SPEC)).orElseThrow();
    }

    /** A copy of {@code p} as a client edits it before sending it back. */
    private static Proxy copy(Proxy p) {
        Proxy c = FakeApi.proxy(NS, p.getMetadata().getName(), p.getSpec());
        c.setMetadata(new ObjectMetaBuilder(p.getMetadata()).build());
        c.setStatus(p.getStatus());
        return c;
    }

    private Proxy stored(String name) {
        return api.get(PROXY, NS, name).orElseThrow();
    }

    @Test
    void shouldSetUidVersionGenerationAndCreationTimeOnCreateAndDropTheStatusSent() {
        Proxy sent = FakeApi.proxy(NS, "p1", SPEC);
        sent.getMetadata().setUid("chosen-by-the-client");
        sent.getMetadata().setResourceVersion("999");
        sent.setStatus(ProxyStatus.EMPTY.withPhase(Phase.Ready));

        Proxy made = api.create(sent).orElseThrow();

        assertNotEquals("chosen-by-the-client", made.getMetadata().getUid());
        assertNotEquals("999", made.getMetadata().getResourceVersion());
        assertEquals(1L, made.getMetadata().getGeneration());
        assertEquals(Conditions.timestamp(clock.instant()), made.getMetadata().getCreationTimestamp());
        assertNull(made.getStatus());
        assertEquals(made, stored("p1"));
        assertNotEquals(made.getMetadata().getUid(), api.create(FakeApi.proxy(NS, "p2", SPEC)).orElseThrow()
                .getMetadata().getUid(), "every object its own UID");
    }

    @Test
    void shouldRefuseToCreateANameThatIsTaken() {
        Proxy first = create("p1");
        assertTrue(api.create(FakeApi.proxy(NS, "p1", OTHER_SPEC)).isEmpty());
        assertEquals(first, stored("p1"));
    }

    @Test
    void shouldRefuseAStaleResourceVersionOnUpdateAndOnStatus() throws Exception {
        Proxy v1 = create("p1");
        Proxy v2 = api.update(annotated(v1, "a"));

        assertThrows(ObjectChangedException.class, () -> api.update(annotated(v1, "b")));
        Proxy staleStatus = copy(v1);
        staleStatus.setStatus(ProxyStatus.EMPTY.withPhase(Phase.Ready));
        assertThrows(ObjectChangedException.class, () -> api.updateStatus(staleStatus));
        assertEquals(v2, stored("p1"));
    }

    @Test
    void shouldAnswerAnUpdateOfAnObjectThatIsGoneAsChanged() {
        Proxy gone = create("p1");
        api.delete(PROXY, NS, "p1");
        assertThrows(ObjectChangedException.class, () -> api.update(annotated(gone, "a")));
        assertTrue(api.get(PROXY, NS, "p1").isEmpty());
    }

    @Test
    void shouldGiveEveryChangingWriteANewVersionAndAWriteThatChangesNothingNone() throws Exception {
        Proxy v1 = create("p1");
        Proxy v2 = api.update(annotated(v1, "a"));
        assertNotEquals(v1.getMetadata().getResourceVersion(), v2.getMetadata().getResourceVersion());

        Proxy same = api.update(copy(v2));
        assertEquals(v2.getMetadata().getResourceVersion(), same.getMetadata().getResourceVersion());
        assertEquals(v2, stored("p1"));
    }

    @Test
    void shouldMoveGenerationOnASpecChangeOnly() throws Exception {
        Proxy v1 = create("p1");
        Proxy annotated = api.update(annotated(v1, "a"));
        assertEquals(1L, annotated.getMetadata().getGeneration());

        Proxy edited = copy(annotated);
        edited.setSpec(OTHER_SPEC);
        assertEquals(2L, api.update(edited).getMetadata().getGeneration());
        assertEquals(2L, api.edit(PROXY, NS, "p1", p -> p.setSpec(OTHER_SPEC)).getMetadata().getGeneration(),
                "the same spec again is no change");
    }

    @Test
    void shouldIgnoreTheStatusOnUpdateAndEverythingElseOnAStatusWrite() throws Exception {
        Proxy v1 = create("p1");
        Proxy both = annotated(v1, "a");
        both.setSpec(OTHER_SPEC);
        both.setStatus(ProxyStatus.EMPTY.withPhase(Phase.Ready));

        Proxy updated = api.update(both);
        assertNull(updated.getStatus());
        assertEquals(OTHER_SPEC, updated.getSpec());

        Proxy status = annotated(updated, "b");
        status.setSpec(SPEC);
        status.setStatus(ProxyStatus.EMPTY.withPhase(Phase.Ready));
        Proxy written = api.updateStatus(status);
        assertEquals(Phase.Ready, written.getStatus().phase());
        assertEquals(OTHER_SPEC, written.getSpec());
        assertEquals(updated.getMetadata().getAnnotations(), written.getMetadata().getAnnotations());
    }

    @Test
    void shouldKeepTheServersOwnMetadataWhateverAnUpdateSends() throws Exception {
        Proxy v1 = create("p1");
        api.editMetadata(PROXY, NS, "p1", m -> m.withFinalizers(Proxy.FINALIZER));
        api.delete(PROXY, NS, "p1");
        Proxy marked = stored("p1");

        Proxy forged = copy(marked);
        forged.setMetadata(new ObjectMetaBuilder(marked.getMetadata()).withUid("forged").withGeneration(7L)
                .withCreationTimestamp("2000-01-01T00:00:00Z").withDeletionTimestamp(null)
                .addToAnnotations("a", "b").build());
        Proxy written = api.update(forged);

        assertEquals(v1.getMetadata().getUid(), written.getMetadata().getUid());
        assertEquals(1L, written.getMetadata().getGeneration());
        assertEquals(v1.getMetadata().getCreationTimestamp(), written.getMetadata().getCreationTimestamp());
        assertEquals(marked.getMetadata().getDeletionTimestamp(), written.getMetadata().getDeletionTimestamp());
        assertEquals("b", written.getMetadata().getAnnotations().get("a"), "the rest of the metadata is the client's");
    }

    @Test
    void shouldRemoveAnObjectWithoutFinalizersOnDelete() {
        create("p1");
        assertTrue(api.delete(PROXY, NS, "p1"));
        assertTrue(api.get(PROXY, NS, "p1").isEmpty());
        assertFalse(api.delete(PROXY, NS, "p1"), "nothing left to delete");
    }

    @Test
    void shouldOnlyMarkAnObjectWithFinalizersAndRemoveItWithItsLastFinalizer() throws Exception {
        create("p1");
        api.editMetadata(PROXY, NS, "p1", m -> m.withFinalizers(Proxy.FINALIZER, "example.com/other"));
        api.delete(PROXY, NS, "p1");
        Proxy marked = stored("p1");
        assertEquals(Conditions.timestamp(clock.instant()), marked.getMetadata().getDeletionTimestamp());

        clock.advance(Duration.ofMinutes(1));
        api.delete(PROXY, NS, "p1");
        assertEquals(marked, stored("p1"), "deleting again changes nothing");

        Proxy one = copy(marked);
        one.getMetadata().setFinalizers(List.of("example.com/other"));
        api.update(one);
        assertTrue(api.get(PROXY, NS, "p1").isPresent());
        api.editMetadata(PROXY, NS, "p1", m -> m.withFinalizers(List.of()));
        assertTrue(api.get(PROXY, NS, "p1").isEmpty());
    }

    @Test
    void shouldAddTheFinalizersADeleteAsksFor() {
        api.create(FakeApi.pool(NS, "fleet", new ProxyPoolSpec(1, null, null, null))).orElseThrow();
        api.delete(POOL, NS, "fleet", List.of("orphan"));
        ProxyPool marked = api.get(POOL, NS, "fleet").orElseThrow();
        assertEquals(List.of("orphan"), marked.getMetadata().getFinalizers());
        assertTrue(marked.getMetadata().getDeletionTimestamp() != null);
    }

    @Test
    void shouldKeepOwnerReferencesAsSentAndCollectNoGarbage() {
        ProxyPool pool = api.create(FakeApi.pool(NS, "fleet", new ProxyPoolSpec(1, null, null, null))).orElseThrow();
        Proxy member = FakeApi.proxy(NS, "fleet-a", SPEC);
        member.getMetadata().setOwnerReferences(List.of(new OwnerReferenceBuilder().withApiVersion(Proxy.GROUP + "/"
                + Proxy.VERSION).withKind(ProxyPool.KIND).withName("fleet").withUid(pool.getMetadata().getUid())
                .withController(true).build()));
        api.create(member).orElseThrow();
        create("loner");

        api.delete(POOL, NS, "fleet");

        assertEquals(List.of("fleet-a"), api.members(new PoolKey(NS, "fleet")).stream()
                .map(p -> p.getMetadata().getName()).toList(), "its member stays, owner reference and all");
    }

    @Test
    void shouldServeSecretsWithoutStatusOrGeneration() {
        Secret secret = api.create(new SecretBuilder().withNewMetadata().withNamespace(NS).withName("s").endMetadata()
                .withData(Map.of("k", "dg==")).build()).orElseThrow();
        assertNull(secret.getMetadata().getGeneration());
        assertThrows(IllegalArgumentException.class, () -> api.updateStatus(secret));

        Secret edited = api.edit(SECRET, NS, "s", s -> s.setData(Map.of("k", "dw==")));
        assertEquals(secret.getMetadata().getUid(), edited.getMetadata().getUid());
        assertNotEquals(secret.getMetadata().getResourceVersion(), edited.getMetadata().getResourceVersion());
        assertNull(edited.getMetadata().getGeneration());
    }

    @Test
    void shouldNeverChangeAnObjectItHandedOut() throws Exception {
        Proxy v1 = create("p1");
        String before = v1.toString();
        api.update(annotated(v1, "a"));
        api.editStatus(PROXY, NS, "p1", p -> p.setStatus(ProxyStatus.EMPTY.withPhase(Phase.Ready)));
        api.delete(PROXY, NS, "p1");
        assertEquals(before, v1.toString());
    }

    @Test
    void shouldAnnounceEveryChangeAndEveryCreate() throws Exception {
        List<Change> changes = new ArrayList<>();
        List<String> created = new ArrayList<>();
        api.watch(changes::add);
        api.onCreate(PROXY, p -> created.add(p.getMetadata().getName()));

        Proxy v1 = create("p1");
        api.update(copy(v1)); // changes nothing: no event
        api.delete(PROXY, NS, "p1");

        assertEquals(List.of(new Change(PROXY, NS, "p1"), new Change(PROXY, NS, "p1")), changes);
        assertEquals("Change[kind=proxy, namespace=crawl, name=p1]", changes.getFirst().toString());
        assertEquals(List.of("p1"), created);
    }

    @Test
    void shouldFailCreatesOfAKindAsListedRefusedStoringNothingOrAnsweredLateHavingStored() {
        api.failCreates(PROXY, CreateFault.REFUSED, CreateFault.LOST_ANSWER);
        api.create(FakeApi.pool(NS, "fleet", new ProxyPoolSpec(1, null, null, null))).orElseThrow();

        assertEquals(500, assertThrows(KubernetesClientException.class, () -> create("p1")).getCode());
        assertTrue(api.get(PROXY, NS, "p1").isEmpty());
        assertEquals(504, assertThrows(KubernetesClientException.class, () -> create("p1")).getCode());
        assertTrue(api.get(PROXY, NS, "p1").isPresent());
        create("p2");
        assertEquals(3, api.createRequests(PROXY));
        assertEquals(1, api.createRequests(POOL));
    }

    private static Proxy annotated(Proxy p, String value) {
        Proxy c = copy(p);
        c.getMetadata().setAnnotations(Map.of("example.com/note", value));
        return c;
    }
}
