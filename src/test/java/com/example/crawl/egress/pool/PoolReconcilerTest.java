package com.example.crawl.egress.pool;

import static com.example.crawl.egress.fakeapi.FakeApi.POOL;
import static com.example.crawl.egress.fakeapi.FakeApi.PROXY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.Conditions;
import com.example.crawl.egress.api.HealthCheck;
import com.example.crawl.egress.api.Placement;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyPool;
import com.example.crawl.egress.api.ProxyPoolSpec;
import com.example.crawl.egress.api.ProxyPoolStatus;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.ProxyStatus;
import com.example.crawl.egress.api.ProxyTemplate;
import com.example.crawl.egress.api.Reason;
import com.example.crawl.egress.api.Rotation;
import com.example.crawl.egress.cache.PoolKey;
import com.example.crawl.egress.clock.FakeClock;
import com.example.crawl.egress.fakeapi.FakeApi.CreateFault;
import com.example.crawl.egress.fakeapi.FakeApi;
import com.example.crawl.egress.runtime.EventReason;
import com.example.crawl.egress.runtime.ObjectEvent;
import com.example.crawl.egress.runtime.Outcome;
import io.fabric8.kubernetes.api.model.IntOrString;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The pool controller end to end on an in-memory API server ({@link FakeApi}): passes of the
 * real {@link PoolReconciler}, with the Proxy controller's part (finalizer, Ready, release on
 * delete) played by the test, and the state of the API checked after each.
 */
class PoolReconcilerTest {

    private static final String NS = "crawl";
    private static final PoolKey KEY = new PoolKey(NS, "fleet");
    private static final String UID = "11111111-1111-1111-1111-111111111111";

    private final FakeClock clock = new FakeClock(Instant.parse("2026-12-01T12:00:00Z"));
    private final FakeApi api = new FakeApi(clock);
    private final ApiPoolStore store = new ApiPoolStore(api);
    private final Map<String, Integer> bans = new HashMap<>();
    private final List<ObjectEvent> events = new ArrayList<>();
    private final PoolReconciler reconciler = new PoolReconciler(store,
            (proxyKey, window) -> bans.getOrDefault(proxyKey, 0), events::add, Duration.ofMinutes(10),
            Duration.ofSeconds(1), clock);

    // ---- scale

    @Test
    void shouldScaleUpToReplicasAndReportReadyOnceTheMembersAre() {
        createPool(spec(3), UID);

        pass();
        assertEquals(3, live().size());
        pass(); // the members' watch events bring it back: status counts what the cache shows, as a ReplicaSet's does

        ProxyPoolStatus starting = status();
        assertEquals(List.of(3, 0, 3), List.of(starting.replicas(), starting.readyReplicas(), starting.updatedReplicas()));
        assertCondition(PoolStatusView.AVAILABLE, Condition.FALSE, "TooFewMembersReady");
        assertCondition(PoolStatusView.PROGRESSING, Condition.TRUE, "Reconciling");
        assertEquals("3 of 3 members up to date, 3 in all", message(PoolStatusView.PROGRESSING));

        markReady();
        pass();

        ProxyPoolStatus ready = status();
        assertEquals(List.of(3, 3, 3), List.of(ready.replicas(), ready.readyReplicas(), ready.updatedReplicas()));
        assertEquals(1L, ready.observedGeneration());
        assertEquals(ProxyPool.POOL_LABEL + "=fleet", ready.selector());
        assertCondition(PoolStatusView.AVAILABLE, Condition.TRUE, "MinimumMembersReady");
        assertCondition(PoolStatusView.PROGRESSING, Condition.FALSE, "Complete");
        assertEquals("all 3 members are up to date and Ready", message(PoolStatusView.PROGRESSING));
        assertTrue(Conditions.find(ready.conditions(), PoolStatusView.REPLICA_FAILURE).isEmpty());
    }

    @Test
    void shouldMakeMembersThatCarryThePoolsLabelsOwnerAndSpec() {
        createPool(spec(1), UID);

        pass();

        Proxy m = live().getFirst();
        assertTrue(m.getMetadata().getName().matches("fleet-[a-z2-7]{8}"), m.getMetadata().getName());
        assertEquals(UID, ProxyPool.owning(m).orElseThrow().getUid());
        assertEquals("fleet", m.getMetadata().getLabels().get(ProxyPool.POOL_LABEL));
        assertEquals("local", m.getMetadata().getLabels().get(ProxyPool.PLACEMENT_LABEL));
        assertEquals("eu", m.getSpec().attributes().get("region"));
        assertEquals(ProxySpec.Mode.Managed, m.getSpec().mode());
    }

    @Test
    void shouldScaleUpAndDownThroughSeveralPassesKeepingTheSurvivors() {
        createPool(spec(2), UID);
        settle();
        Set<String> first = names(live());

        scale(5);
        pass();
        assertEquals(5, live().size());
        assertTrue(names(live()).containsAll(first), "scaling up keeps the members there are");
        settle();
        assertEquals(List.of(5, 5), List.of(status().replicas(), status().readyReplicas()));

        scale(1);
        pass();
        assertEquals(1, live().size(), "Ready members above replicas go while at least replicas - maxUnavailable stay");
        assertEquals(4, api.members(KEY).size() - live().size(), "the others are being deleted");
        assertEquals(1, status().replicas());
        finishDeletes();
        settle();
        assertEquals(1, api.members(KEY).size());
        assertCondition(PoolStatusView.PROGRESSING, Condition.FALSE, "Complete");

        scale(0);
        settle();
        assertEquals(List.of(), api.members(KEY));
    }

    @Test
    void shouldRemoveMembersThatAreNotReadyFirstWhenScalingDown() {
        createPool(spec(3), UID);
        settle();
        Set<String> ready = names(live());
        scale(5);
        pass();
        scale(3);

        pass();

        assertEquals(ready, names(live()), "the two still starting went, the Ready ones stayed");
    }

    @Test
    void shouldMakeMembersThatCarryTheTemplatesLabelsAndAnnotations() {
        createPool(metadata(spec(1), Map.of("team", "crawl"), Map.of("owner", "crawl-team")), UID);

        pass();

        Proxy m = live().getFirst();
        assertEquals("crawl", m.getMetadata().getLabels().get("team"));
        assertEquals(Map.of("owner", "crawl-team"), m.getMetadata().getAnnotations());
    }

    @Test
    void shouldCreateAtMostABurstInOnePassAndLookAgainAtOnce() {
        createPool(spec(PoolPlan.MAX_CREATES + 1), UID);

        Outcome first = pass();

        assertEquals(PoolPlan.MAX_CREATES, live().size());
        assertEquals(Outcome.after(Duration.ZERO), first);
        pass();
        assertEquals(PoolPlan.MAX_CREATES + 1, live().size());
    }

    @Test
    void shouldNameAtMostFiveMembersInAnEvent() {
        createPool(spec(5), UID);
        pass();
        scale(12);
        pass();

        List<String> notes = events.stream().map(ObjectEvent::note).toList();
        String name = "fleet-[a-z2-7]{8}";
        assertEquals(2, notes.size(), notes.toString());
        assertTrue(notes.get(0).matches("Created 5 members: (" + name + ", ){4}" + name), notes.get(0));
        assertTrue(notes.get(1).matches("Created 7 members: (" + name + ", ){4}" + name + " and 2 more"), notes.get(1));
    }

    @Test
    void shouldCountOnlyTheMembersThatStayAfterAScaleDown() {
        createPool(spec(3), UID);
        settle();
        scale(1);

        pass();

        ProxyPoolStatus s = status();
        assertEquals(List.of(1, 1, 1), List.of(s.replicas(), s.readyReplicas(), s.updatedReplicas()));
    }

    @Test
    void shouldCountNoMemberTheCacheDoesNotShowInTheStatus() {
        createPool(spec(3), UID);
        store.lagCache(true);

        pass();
        pass();

        ProxyPoolStatus s = status();
        assertEquals(List.of(0, 0, 0), List.of(s.replicas(), s.readyReplicas(), s.updatedReplicas()),
                "made, but not members yet for the status: it counts what the cache shows");
    }

    @Test
    void shouldReplaceAMemberSomeoneElseDeletesAtOnce() {
        createPool(spec(2), UID);
        settle();
        String gone = live().getFirst().getMetadata().getName();
        api.delete(PROXY, NS, gone); // kubectl delete: the Proxy's finalizer keeps it while its instance goes

        pass();

        assertEquals(2, live().size(), "a member being deleted is no member: its replacement is made now");
        assertFalse(names(live()).contains(gone));
    }

    @Test
    void shouldLookAgainWhenAMemberIsNextDueAndAtLeastEveryResync() {
        createPool(rotation(spec(2), new Rotation("24h", "5m", null, null, null)), UID);
        settle();

        assertEquals(Outcome.after(Duration.ofMinutes(10)), pass(), "nothing due within the resync");

        unhealthy(live().getFirst());
        clock.advance(Duration.ofMinutes(4));

        assertEquals(Outcome.after(Duration.ofMinutes(1)), pass(), "when the Unhealthy member is due");
    }

    // ---- failures

    @Test
    void shouldReportAnInvalidTemplateAndCreateNothing() {
        ProxySpec external = new ProxySpec(ProxySpec.Mode.External, null, null, null, null, null, null, null, null,
                null, null);
        createPool(new ProxyPoolSpec(3, new ProxyTemplate(null, external), null, null), UID);

        Outcome outcome = pass();

        assertEquals(List.of(), api.list(PROXY));
        assertCondition(PoolStatusView.REPLICA_FAILURE, Condition.TRUE, "InvalidTemplate");
        assertTrue(message(PoolStatusView.REPLICA_FAILURE).contains("spec.template.spec.mode"),
                message(PoolStatusView.REPLICA_FAILURE));
        assertInstanceOf(Outcome.RequeueAfter.class, outcome);
    }

    @Test
    void shouldReportAPlacementThatMakesAnInvalidMemberAndCreateNothing() {
        Placement bad = new Placement("bad", "local", 1, Map.of("k".repeat(70), "v"), null, null);
        createPool(new ProxyPoolSpec(3, template(3128, Map.of()), List.of(
                new Placement("good", "local", 1, null, null, null), bad), null), UID);

        pass();

        assertEquals(List.of(), api.list(PROXY));
        assertCondition(PoolStatusView.REPLICA_FAILURE, Condition.TRUE, "InvalidTemplate");
        assertTrue(message(PoolStatusView.REPLICA_FAILURE).contains("placement bad: spec.template.spec.attributes"),
                message(PoolStatusView.REPLICA_FAILURE));
    }

    @Test
    void shouldClearAnInvalidTemplateOnceTheTemplateIsFixed() {
        createPool(port(spec(2), 0), UID);
        pass();
        assertCondition(PoolStatusView.REPLICA_FAILURE, Condition.TRUE, "InvalidTemplate");

        editPool(s -> port(s, 3128));
        pass();

        assertEquals(2, live().size());
        assertTrue(Conditions.find(status().conditions(), PoolStatusView.REPLICA_FAILURE).isEmpty());
    }

    @Test
    void shouldReportAnUnreadableMaxSurgeAndCreateNothing() {
        createPool(rotation(spec(2), new Rotation(null, null, null, new IntOrString("lots"),
                null)), UID);

        Outcome outcome = pass();

        assertEquals(List.of(), api.list(PROXY));
        assertCondition(PoolStatusView.REPLICA_FAILURE, Condition.TRUE, "InvalidTemplate");
        assertTrue(message(PoolStatusView.REPLICA_FAILURE).contains("spec.rotation.maxSurge"),
                message(PoolStatusView.REPLICA_FAILURE));
        assertInstanceOf(Outcome.RequeueAfter.class, outcome);
    }

    @Test
    void shouldStopTheBatchAtTheFirstFailedCreateAndReportIt() {
        createPool(spec(10), UID);
        api.failCreates(PROXY, CreateFault.REFUSED);

        Outcome first = pass();

        assertEquals(1, api.createRequests(PROXY), "a create that cannot be made costs one request a pass");
        assertEquals(List.of(), api.list(PROXY));
        assertInstanceOf(Outcome.Failed.class, first);
        assertCondition(PoolStatusView.REPLICA_FAILURE, Condition.TRUE, "CreateFailed");

        api.failCreates(PROXY, CreateFault.NONE, CreateFault.NONE, CreateFault.NONE, CreateFault.REFUSED);
        pass();

        assertEquals(1 + 4, api.createRequests(PROXY), "batches of 1 and 2 went through, the batch of 4 stopped at its first");
        assertEquals(3, live().size());

        pass();
        assertEquals(10, live().size());
        assertTrue(Conditions.find(status().conditions(), PoolStatusView.REPLICA_FAILURE).isEmpty());
    }

    @Test
    void shouldNotCreateTwiceWhenTheAnswerToACreateWasLost() {
        createPool(spec(3), UID);
        store.lagCache(true);
        api.failCreates(PROXY, CreateFault.NONE, CreateFault.LOST_ANSWER);

        pass();
        assertEquals(2, api.list(PROXY).size(), "one made, one made with its answer lost; the batch stopped there");

        pass();
        pass();
        assertEquals(3, api.list(PROXY).size(), "the lost one is counted although the cache does not show it");
        store.lagCache(false);
        pass();
        assertEquals(3, api.list(PROXY).size());
    }

    @Test
    void shouldCreateAgainWhatARefusedCreateDidNotMake() {
        createPool(spec(2), UID);
        store.lagCache(true);
        api.failCreates(PROXY, CreateFault.REFUSED);

        pass();
        pass();

        assertEquals(2, api.list(PROXY).size(), "the refused create left no member counted but not made");
    }

    @Test
    void shouldNotCreateAgainWhatTheCacheDoesNotShowYet() {
        createPool(spec(4), UID);
        store.lagCache(true);

        for (int i = 0; i < 5; i++) {
            pass();
            clock.advance(Duration.ofSeconds(30));
        }

        assertEquals(4, api.list(PROXY).size());
    }

    @Test
    void shouldRetryWhenThePoolChangedAfterTheCacheSawIt() {
        createPool(spec(1), UID);
        store.freezePool(KEY, false);
        editPool(s -> new ProxyPoolSpec(2, s.template(), s.placements(), s.rotation()));

        Outcome outcome = pass();

        assertInstanceOf(Outcome.Conflict.class, outcome, "the status write carried a stale resourceVersion");
        store.thawPool(KEY);
        pass();
        assertEquals(2, live().size());
        assertEquals(2L, status().observedGeneration());
    }

    @Test
    void shouldTellOfTheMembersMadeBeforeACreateFailed() {
        createPool(spec(10), UID);
        api.failCreates(PROXY, CreateFault.NONE, CreateFault.NONE, CreateFault.NONE, CreateFault.REFUSED);

        pass();

        assertEquals(List.of(PoolEventReason.MembersCreated, PoolEventReason.MemberCreateFailed),
                events.stream().map(ObjectEvent::reason).toList());
        assertTrue(events.get(0).note().startsWith("Created 3 members: "), events.get(0).note());
        assertEquals(List.of(EventReason.Type.Normal, EventReason.Type.Warning),
                events.stream().map(e -> e.reason().type()).toList());
        assertEquals(List.of("Scale", "Scale"), events.stream().map(e -> e.reason().action()).toList());
    }

    @Test
    void shouldMakeAnotherMemberWhenANewNameIsTakenByChance() {
        createPool(spec(1), UID);
        ProxyPool pool = api.get(POOL, KEY).orElseThrow();
        String taken = MemberObjects.newMember(pool, MemberTemplate.of(pool).get("local"), new SplittableRandom(7))
                .getMetadata().getName();
        api.create(FakeApi.proxy(NS, taken, template(3128, Map.of()).spec())); // someone's own Proxy
        PoolReconciler seeded = new PoolReconciler(store, BanCounts.NONE, events::add, Duration.ofMinutes(10),
                Duration.ofSeconds(1), clock, new SplittableRandom(7));

        seeded.reconcile(KEY);
        seeded.reconcile(KEY);

        assertEquals(1, live().size(), "the pass after the taken name made a member under another");
        assertTrue(ProxyPool.owning(api.get(PROXY, NS, taken).orElseThrow()).isEmpty(), "the other Proxy is left alone");
    }

    @Test
    void shouldNotTellOfCreatingAMemberWhoseNameWasTaken() {
        createPool(spec(1), UID);
        ProxyPool pool = api.get(POOL, KEY).orElseThrow();
        String taken = MemberObjects.newMember(pool, MemberTemplate.of(pool).get("local"), new SplittableRandom(7))
                .getMetadata().getName();
        api.create(FakeApi.proxy(NS, taken, template(3128, Map.of()).spec()));
        PoolReconciler seeded = new PoolReconciler(store, BanCounts.NONE, events::add, Duration.ofMinutes(10),
                Duration.ofSeconds(1), clock, new SplittableRandom(7));

        seeded.reconcile(KEY);
        seeded.reconcile(KEY);

        List<String> notes = events.stream().map(ObjectEvent::note).toList();
        assertEquals(1, notes.size(), notes.toString());
        assertFalse(notes.getFirst().contains(taken), notes.toString());
        assertEquals("Created 1 member: " + live().getFirst().getMetadata().getName(), notes.getFirst());
    }

    @Test
    void shouldCountACreateWhoseAnswerWasLostAsMadeWhenItCannotBeReadBack() {
        createPool(spec(2), UID);
        store.lagCache(true);
        store.failProxyReads(true);
        api.failCreates(PROXY, CreateFault.LOST_ANSWER);

        pass();
        pass();
        pass();

        assertEquals(2, api.list(PROXY).size(), "not knowing, it counts the member as made: it expires if it was not");
    }

    @Test
    void shouldNotCountAMemberItDeletedWhileTheCacheStillShowsIt() {
        createPool(rotation(spec(2), new Rotation(null, null, null, new IntOrString(1), new IntOrString(1))), UID);
        settle();
        store.lagDeletes(true);
        editPool(s -> port(s, 8080));
        pass(); // deletes one old member (maxUnavailable 1), retires the other, creates two
        String retired = live().stream().filter(m -> m.getMetadata().getAnnotations() != null
                && m.getMetadata().getAnnotations().containsKey(ProxyPool.RETIRED_ANNOTATION)).findFirst()
                .orElseThrow().getMetadata().getName();

        pass();

        assertTrue(names(live()).contains(retired),
                "the only Ready member stays until a replacement is Ready: the deleted one is no longer Ready");
    }

    // ---- templates

    @Test
    void shouldUpdateAttributesMaxLeasesHealthCheckAndLabelsInPlace() {
        createPool(spec(3), UID);
        settle();
        Map<String, String> uids = uids(live());
        HealthCheck check = new HealthCheck("http://example.com/", null, 30, null, null, null, null);

        editPool(s -> new ProxyPoolSpec(s.replicas(), new ProxyTemplate(new ProxyTemplate.Metadata(
                Map.of("team", "crawl"), null), new ProxySpec(null, "local", 3128, Map.of("region", "us"), 5, null, null,
                        null, null, null, check)), s.placements(), s.rotation()));
        settle();

        assertEquals(uids, uids(live()), "the same Proxies, no member replaced");
        for (Proxy m : live()) {
            assertEquals(Map.of("region", "us"), m.getSpec().attributes());
            assertEquals(5, m.getSpec().maxLeases());
            assertEquals(check, m.getSpec().healthCheck());
            assertEquals("crawl", m.getMetadata().getLabels().get("team"));
        }
        assertEquals(3, status().updatedReplicas());
    }

    @Test
    void shouldRollMembersOnAPortChangeWithinTheSurge() {
        createPool(rotation(spec(4), new Rotation(null, null, null, new IntOrString(1),
                new IntOrString(0))), UID);
        settle();
        Set<String> before = names(live());

        editPool(s -> port(s, 8080));
        int most = 0;
        for (int i = 0; i < 40; i++) {
            pass();
            most = Math.max(most, live().size());
            assertTrue(live().stream().filter(PoolReconcilerTest::ready).count() >= 4,
                    "maxUnavailable 0: no Ready member goes before its replacement is Ready");
            markReady();
            finishDeletes();
            clock.advance(Duration.ofSeconds(5));
        }

        assertEquals(5, most, "replicas + maxSurge");
        assertEquals(4, live().size());
        assertTrue(live().stream().noneMatch(m -> before.contains(m.getMetadata().getName())), "every member replaced");
        assertTrue(live().stream().allMatch(m -> m.getSpec().port() == 8080));
        assertTrue(live().stream().allMatch(m -> m.getMetadata().getAnnotations() == null
                || !m.getMetadata().getAnnotations().containsKey(ProxyPool.RETIRED_ANNOTATION)));
        assertCondition(PoolStatusView.PROGRESSING, Condition.FALSE, "Complete");
    }

    @Test
    void shouldApplyALabelOrAnAnnotationChangeAloneInPlace() {
        createPool(spec(2), UID);
        settle();
        Map<String, String> uids = uids(live());

        editPool(s -> metadata(s, Map.of("team", "crawl"), Map.of()));
        pass();
        assertTrue(live().stream().allMatch(m -> "crawl".equals(m.getMetadata().getLabels().get("team"))));

        editPool(s -> metadata(s, Map.of("team", "crawl"), Map.of("owner", "crawl-team")));
        pass();
        assertTrue(live().stream().allMatch(m -> m.getMetadata().getAnnotations() != null
                && "crawl-team".equals(m.getMetadata().getAnnotations().get("owner"))));
        assertEquals(uids, uids(live()), "the same Proxies, no member replaced");
    }

    @Test
    void shouldApplyAttributesMaxLeasesAndHealthCheckEachAloneInPlace() {
        createPool(spec(2), UID);
        settle();
        Map<String, String> uids = uids(live());
        HealthCheck check = new HealthCheck("http://example.com/", null, 30, null, null, null, null);

        editPool(s -> inPlace(s, Map.of("region", "us"), null, null));
        pass();
        assertTrue(live().stream().allMatch(m -> m.getSpec().attributes().equals(Map.of("region", "us"))));

        editPool(s -> inPlace(s, Map.of("region", "us"), 5, null));
        pass();
        assertTrue(live().stream().allMatch(m -> m.getSpec().maxLeases() == 5));

        editPool(s -> inPlace(s, Map.of("region", "us"), 5, check));
        pass();
        assertTrue(live().stream().allMatch(m -> m.getSpec().healthCheck().equals(check)));
        assertEquals(uids, uids(live()), "the same Proxies, no member replaced");
    }

    @Test
    void shouldRotateMembersOnceTheyReachMaxAge() {
        createPool(rotation(spec(2), new Rotation("1h", null, null, new IntOrString(1), new IntOrString(0))), UID);
        settle();
        Set<String> first = names(live());

        clock.advance(Duration.ofHours(1));
        settle();

        assertEquals(2, live().size());
        assertTrue(live().stream().noneMatch(m -> first.contains(m.getMetadata().getName())), "every member replaced");
    }

    @Test
    void shouldReplaceAMemberRetiredByHand() {
        createPool(rotation(spec(2), new Rotation(null, null, null, new IntOrString(1), new IntOrString(0))), UID);
        settle();
        String old = live().getFirst().getMetadata().getName();
        api.editMetadata(PROXY, NS, old, m -> m.addToAnnotations(ProxyPool.RETIRED_ANNOTATION, "by-hand"));

        settle();

        assertTrue(api.get(PROXY, NS, old).isEmpty(), "replaced, then deleted");
        assertEquals(2, live().size());
    }

    // ---- orphans and deletion

    @Test
    void shouldDeleteNoMemberWhileTheAPIStillHasAPoolTheCacheDoesNotShow() {
        createPool(spec(2), UID);
        settle();
        store.freezePool(KEY, true);

        Outcome outcome = pass();

        assertEquals(2, live().size());
        assertInstanceOf(Outcome.RequeueAfter.class, outcome);
    }

    @Test
    void shouldDeleteTheMembersOfAPoolThatIsGone() {
        createPool(spec(2), UID);
        settle();
        api.delete(POOL, NS, KEY.name(), List.of());

        pass();

        assertEquals(List.of(), live());
        finishDeletes();
        assertEquals(List.of(), api.list(PROXY));
    }

    @Test
    void shouldDeleteTheMembersOfAnEarlierPoolOfTheSameName() {
        createPool(spec(2), UID);
        settle();
        Set<String> old = names(live());
        api.delete(POOL, NS, KEY.name(), List.of());
        createPool(spec(2), "22222222-2222-2222-2222-222222222222");

        settle();

        assertEquals(2, live().size());
        assertTrue(live().stream().noneMatch(m -> old.contains(m.getMetadata().getName())));
        assertTrue(live().stream().allMatch(m -> ProxyPool.owning(m).orElseThrow().getUid().startsWith("2222")));
    }

    @Test
    void shouldNotDeleteTheMembersOfANewerPoolTheCacheHasNotSeenYet() {
        createPool(spec(2), UID);
        settle();
        store.freezePool(KEY, false); // the cache keeps showing this pool
        api.delete(POOL, NS, KEY.name(), List.of());
        String newer = "22222222-2222-2222-2222-222222222222";
        createPool(spec(2), newer);
        Set<String> members = names(live());
        for (String m : members) { // as if the newer pool's controller (a new leader) had made them
            api.editMetadata(PROXY, NS, m, b -> b.editFirstOwnerReference().withUid(newer).endOwnerReference());
        }

        pass();

        assertTrue(names(live()).containsAll(members), "members are deleted only once the API shows their pool gone");
    }

    @Test
    void shouldNotCountWhatItCreatedForAnEarlierPoolOfTheSameNameAsMembersOfTheNewOne() {
        createPool(spec(3), UID);
        pass();
        api.delete(POOL, NS, KEY.name(), List.of());
        createPool(spec(3), "22222222-2222-2222-2222-222222222222");

        pass();

        assertEquals(3, live().stream().filter(m -> ProxyPool.owning(m).orElseThrow().getUid().startsWith("2222"))
                .count(), "the earlier pool's creates are no members of the new one");
    }

    @Test
    void shouldDeleteTheMembersOfAPoolBeingDeleted() {
        createPool(spec(3), UID);
        settle();
        api.delete(POOL, NS, KEY.name(), List.of("example.com/hold"));

        pass();

        assertEquals(List.of(), live());
        assertEquals(3, api.members(KEY).size(), "marked, released by their own finalizer's owner");
    }

    @Test
    void shouldLeaveTheMembersOfAPoolDeletedWithOrphanPropagation() {
        createPool(spec(3), UID);
        settle();
        api.delete(POOL, NS, KEY.name(), List.of("orphan"));

        pass();

        assertEquals(3, live().size());
    }

    // ---- replacement

    @Test
    void shouldRetireABannedMemberAndReplaceIt() {
        createPool(rotation(spec(2), new Rotation(null, null,
                new Rotation.RecycleAfterBans(3, "1h"), new IntOrString(1), new IntOrString(0))), UID);
        settle();
        Proxy banned = live().getFirst();
        bans.put(NS + "/" + banned.getMetadata().getName(), 3);

        pass();

        Proxy marked = api.get(PROXY, NS, banned.getMetadata().getName()).orElseThrow();
        assertEquals("Banned", marked.getMetadata().getAnnotations().get(ProxyPool.RETIRED_ANNOTATION));
        assertEquals(banned.getSpec(), marked.getSpec(), "retiring a member changes its annotation alone");
        assertEquals(3, live().size(), "its replacement is made while it stays, Ready, until the new one is");

        markReady();
        pass();
        finishDeletes();

        assertEquals(2, live().size());
        assertTrue(api.get(PROXY, NS, banned.getMetadata().getName()).isEmpty());
        assertTrue(live().stream().allMatch(PoolReconcilerTest::ready));
    }

    @Test
    void shouldTellOfCreatedRetiredDeletedAndFailedMembersAsEventsOnThePool() {
        createPool(rotation(spec(2), new Rotation(null, null,
                new Rotation.RecycleAfterBans(3, "1h"), new IntOrString(1), new IntOrString(0))), UID);
        settle();
        Proxy banned = live().getFirst();
        bans.put(NS + "/" + banned.getMetadata().getName(), 3);
        api.failCreates(PROXY, CreateFault.REFUSED);
        pass(); // retires, and its replacement's create is refused
        pass(); // makes the replacement
        markReady();
        pass(); // the replacement is Ready: the banned member goes

        List<String> told = events.stream().map(e -> e.reason() + " " + e.note()).toList();
        assertTrue(events.stream().allMatch(e -> e.regarding().equals(new ObjectEvent.Regarding(
                "crawl.example.com/v1alpha1", "ProxyPool", KEY.namespace(), KEY.name(), UID))), told.toString());
        assertTrue(told.getFirst().startsWith("MembersCreated Created 2 members: " + KEY.name() + "-"), told.toString());
        assertTrue(told.contains("MemberRetired Retired member " + banned.getMetadata().getName()
                + " (Banned): no longer lent; a new member takes its place"), told.toString());
        assertTrue(told.stream().anyMatch(t -> t.startsWith("MemberCreateFailed creating member ")), told.toString());
        assertTrue(told.contains("MembersDeleted Deleted 1 member: " + banned.getMetadata().getName()), told.toString());
    }

    @Test
    void shouldReplaceAMemberUnhealthyForLongerThanTheLimit() {
        createPool(rotation(spec(2), new Rotation(null, "5m", null, null, null)), UID);
        settle();
        Proxy sick = live().getFirst();
        unhealthy(sick);
        clock.advance(Duration.ofMinutes(4));
        pass();
        assertTrue(names(live()).contains(sick.getMetadata().getName()), "not yet: Unhealthy for 4 minutes of 5");

        clock.advance(Duration.ofMinutes(2));
        settle();

        assertTrue(api.get(PROXY, NS, sick.getMetadata().getName()).isEmpty());
        assertEquals(2, live().size());
    }

    // ---- helpers: the test plays the user and the Proxy controller

    private Outcome pass() {
        return reconciler.reconcile(KEY);
    }

    /** Passes, the Proxy controller's part and time until nothing changes. */
    private void settle() {
        for (int i = 0; i < 30; i++) {
            pass();
            markReady();
            finishDeletes();
            clock.advance(Duration.ofSeconds(5));
        }
        pass();
    }

    private void createPool(ProxyPoolSpec spec, String uid) {
        api.create(FakeApi.pool(NS, KEY.name(), spec), uid).orElseThrow();
    }

    /** A user edits the pool's spec (kubectl apply, kubectl scale). */
    private void editPool(UnaryOperator<ProxyPoolSpec> change) {
        api.edit(POOL, NS, KEY.name(), p -> p.setSpec(change.apply(p.getSpec())));
    }

    /** The Proxy controller, played here, edits a member's status without a resourceVersion. */
    private void editStatus(String member, UnaryOperator<ProxyStatus> change) {
        api.editStatus(PROXY, NS, member, p -> p.setStatus(change.apply(p.getStatus() == null ? ProxyStatus.EMPTY
                : p.getStatus())));
    }

    private void scale(int replicas) {
        editPool(s -> new ProxyPoolSpec(replicas, s.template(), s.placements(), s.rotation()));
    }

    /** What the Proxy controller does for a new member: the finalizer, then Provisioned and Healthy, so phase Ready. */
    private void markReady() {
        for (Proxy p : live()) {
            if (ready(p)) {
                continue;
            }
            api.editMetadata(PROXY, NS, p.getMetadata().getName(), m -> m.withFinalizers(Proxy.FINALIZER));
            editStatus(p.getMetadata().getName(), s -> s
                    .withCondition(Condition.of(Condition.PROVISIONED, true, 1, Reason.Created, "up", clock.instant()))
                    .withCondition(Condition.of(Condition.HEALTHY, true, 1, Reason.ProbeSucceeded, "ok",
                            clock.instant())));
        }
    }

    private void unhealthy(Proxy p) {
        editStatus(p.getMetadata().getName(), s -> s.withCondition(Condition.of(Condition.HEALTHY, false, 1,
                Reason.ProbeFailed, "down", clock.instant())));
    }

    /** What the Proxy controller does for a member being deleted: its instance goes, then its finalizer. */
    private void finishDeletes() {
        for (Proxy p : api.list(PROXY)) {
            if (p.getMetadata().getDeletionTimestamp() != null) {
                api.editMetadata(PROXY, NS, p.getMetadata().getName(), m -> m.withFinalizers(List.of()));
            }
        }
    }

    private static boolean ready(Proxy p) {
        return p.getStatus() != null && p.getStatus().conditions().stream().filter(c -> c.isTrue()).count() == 2;
    }

    private List<Proxy> live() {
        return api.members(KEY).stream().filter(p -> p.getMetadata().getDeletionTimestamp() == null).toList();
    }

    private static Set<String> names(List<Proxy> proxies) {
        return proxies.stream().map(p -> p.getMetadata().getName()).collect(Collectors.toCollection(TreeSet::new));
    }

    private static Map<String, String> uids(List<Proxy> proxies) {
        return proxies.stream().collect(Collectors.toMap(p -> p.getMetadata().getName(), p -> p.getMetadata().getUid()));
    }

    private ProxyPoolStatus status() {
        return Objects.requireNonNull(api.get(POOL, KEY).orElseThrow().getStatus(), "no status written");
    }

    private void assertCondition(String type, String status, String reason) {
        Condition c = Conditions.find(status().conditions(), type).orElseThrow(() -> new AssertionError("no " + type));
        assertEquals(List.of(status, reason), List.of(c.status(), c.reason()), c::message);
    }

    private String message(String type) {
        return Conditions.find(status().conditions(), type).map(Condition::message).orElse("");
    }

    private static ProxyTemplate template(int port, Map<String, String> labels) {
        return new ProxyTemplate(new ProxyTemplate.Metadata(labels, null), new ProxySpec(null, "local", port,
                Map.of("region", "eu"), null, null, null, null, null, null, null));
    }

    private static ProxyPoolSpec spec(int replicas) {
        return new ProxyPoolSpec(replicas, template(3128, Map.of()), null, null);
    }

    private static ProxyPoolSpec port(ProxyPoolSpec s, int port) {
        return new ProxyPoolSpec(s.replicas(), template(port, s.template().metadata().labels()), s.placements(),
                s.rotation());
    }

    private static ProxyPoolSpec metadata(ProxyPoolSpec s, Map<String, String> labels, Map<String, String> annotations) {
        return new ProxyPoolSpec(s.replicas(), new ProxyTemplate(new ProxyTemplate.Metadata(labels, annotations),
                s.template().spec()), s.placements(), s.rotation());
    }

    /** The template with the fields a member takes in place. */
    private static ProxyPoolSpec inPlace(ProxyPoolSpec s, Map<String, String> attributes, Integer maxLeases,
            HealthCheck check) {
        return new ProxyPoolSpec(s.replicas(), new ProxyTemplate(s.template().metadata(), new ProxySpec(null, "local", 3128,
                attributes, maxLeases, null, null, null, null, null, check)), s.placements(), s.rotation());
    }

    private static ProxyPoolSpec rotation(ProxyPoolSpec s, Rotation rotation) {
        return new ProxyPoolSpec(s.replicas(), s.template(), s.placements(), rotation);
    }
}
