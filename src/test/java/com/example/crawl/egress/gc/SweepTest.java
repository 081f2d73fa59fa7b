package com.example.crawl.egress.gc;

import static com.example.crawl.egress.proxy.LogLines.field;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.clock.FakeClock;
import com.example.crawl.egress.gc.OwnedSecret.Kind;
import com.example.crawl.egress.provider.CollectsUnused;
import com.example.crawl.egress.provider.FakeProvider.Op;
import com.example.crawl.egress.provider.FakeProvider;
import com.example.crawl.egress.provider.ForwardingProvider;
import com.example.crawl.egress.provider.Instance;
import com.example.crawl.egress.provider.InstanceState;
import com.example.crawl.egress.provider.Provider;
import com.example.crawl.egress.provider.ProviderException;
import com.example.crawl.egress.proxy.LogLines;
import io.opentelemetry.api.trace.TracerProvider;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;
import tools.jackson.databind.JsonNode;

/**
 * One sweep over fake providers and a fake API: what it deletes, what it keeps and why, and how
 * each failure leaves the rest of the sweep alone. Every kept object differs from a deleted one in
 * one respect only, so each rule is shown to prevent a delete on its own.
 */
class SweepTest {

    private static final Duration MIN_AGE = Duration.ofMinutes(10);
    private static final String GONE = "uid-gone";
    private static final String LIVE = "uid-live";

    private final FakeClock clock = new FakeClock(Instant.parse("2026-03-01T12:00:00Z"));
    private final FakeProvider a = new FakeProvider(clock);
    private final FakeProvider b = new FakeProvider(clock);
    private final FakeCluster cluster = new FakeCluster().live(LIVE);
    private final RecordingGcRecorder recorder = new RecordingGcRecorder();
    private final Sweep sweep = new Sweep(Registries.of("a", a, "b", b), cluster, new OrphanRule(MIN_AGE), clock,
            recorder, TracerProvider.noop().get("test"));
    private LogLines log;

    @BeforeEach
    void captureLog() {
        log = LogLines.install(Level.DEBUG);
    }

    @AfterEach
    void restoreLog() {
        LogLines.restore();
    }

    @Test
    void shouldDeleteAnOldInstanceOfAGoneProxyAndLogAndCountIt() {
        a.seed(instance("orphan", GONE, old()));

        Sweep.Result result = sweep.run(() -> false);

        assertEquals(new Sweep.Result(GcRecorder.COMPLETED, 1, 0, 0), result);
        assertEquals(List.of("fake/orphan"), deleted(a));
        assertEquals(List.of("instance:a", "sweep:completed"), recorder.reports());
        List<JsonNode> lines = log.lines("Deleted orphaned instance", line -> true);
        assertEquals(1, lines.size());
        assertEquals("warn", field(lines.getFirst(), "level"));
        assertEquals("a", field(lines.getFirst(), "provider"));
        assertEquals("fake/orphan", field(lines.getFirst(), "providerID"));
        assertEquals(GONE, field(lines.getFirst(), "uid"));
    }

    @Test
    void shouldCountAnOrphanOnceWhileTheProviderStillListsItAfterItsDelete() {
        a.seed(instance("orphan", GONE, old()));

        Sweep.Result first = sweep.run(() -> false);
        Sweep.Result again = sweep.run(() -> false);

        assertEquals(1, first.instancesDeleted());
        assertEquals(new Sweep.Result(GcRecorder.COMPLETED, 0, 0, 0), again,
                "the fake lists a deleted instance as Terminated, as a VM being deleted is listed: asked again, not counted");
        assertEquals(2, a.calls(Op.DELETE), "asking again is harmless, and covers a delete that did not take");
        assertEquals(List.of("instance:a", "sweep:completed", "sweep:completed"), recorder.reports());
        assertEquals(1, log.lines("Deleted orphaned instance", line -> true).size());
    }

    @Test
    void shouldKeepAnInstanceWithoutOwnerLabel() {
        assertKeptAlone(instance("kept", null, old()), "NoOwner");
    }

    @Test
    void shouldKeepAnInstanceYoungerThanTheMinimumAge() {
        assertKeptAlone(instance("kept", GONE, clock.instant().minus(MIN_AGE).plusSeconds(1)), "TooYoung");
    }

    @Test
    void shouldKeepAnInstanceWhoseCreationTimeIsUnknown() {
        assertKeptAlone(instance("kept", GONE, null), "AgeUnknown");
    }

    @Test
    void shouldKeepAnInstanceWhoseProxyIsLive() {
        assertKeptAlone(instance("kept", LIVE, old()), "OwnerLive");
    }

    @Test
    void shouldKeepAnInstanceWhoseProxyIsBeingDeleted() {
        // The API lists a Proxy with a deletionTimestamp like any other (ApiCluster and the IT show
        // it); its finalizer deletes the instance, and GC must not race it.
        cluster.live("uid-deleting");
        assertKeptAlone(instance("kept", "uid-deleting", old()), "OwnerLive");
    }

    @Test
    void shouldJudgeAgesAtTheMomentBeforeTheProxiesWereListed() {
        Sweep noMinimum = new Sweep(Registries.of("a", a), cluster, new OrphanRule(Duration.ZERO), clock, recorder,
                TracerProvider.noop().get("test"));
        a.seed(instance("orphan", GONE, old()));
        cluster.onProxyList(() -> {
            // A Proxy and its instance made while the list is under way: its UID is not in the answer.
            clock.advance(Duration.ofMillis(1));
            a.seed(instance("new", "uid-made-during-the-list", clock.instant()));
        });

        noMinimum.run(() -> false);

        assertEquals(List.of("fake/orphan"), deleted(a));
    }

    @Test
    void shouldSkipTheWholeSweepWhenTheProxiesCannotBeListed() {
        a.seed(instance("orphan", GONE, old()));
        cluster.secret(secret(Kind.CREDENTIALS, "orphan-proxy-auth", GONE, old()));
        cluster.failProxyList();

        Sweep.Result result = sweep.run(() -> false);

        assertEquals(GcRecorder.SKIPPED, result.outcome());
        assertEquals(0, a.calls(Op.LIST) + b.calls(Op.LIST), "no provider is asked");
        assertEquals(List.of(), cluster.deleted());
        assertEquals(List.of("sweep:skipped"), recorder.reports());
        assertTrue(field(log.lines("Cannot list Proxies; skipping this orphan sweep", l -> true).getFirst(), "error")
                .contains("503"));
    }

    @Test
    void shouldSweepTheNextProviderWhenOneCannotList() {
        a.failAlways(Op.LIST, new ProviderException.Transient("backend unreachable"));
        b.seed(instance("orphan-b", GONE, old()));

        Sweep.Result result = sweep.run(() -> false);

        assertEquals(new Sweep.Result(GcRecorder.PARTIAL, 1, 0, 1), result);
        assertEquals(List.of("fake/orphan-b"), deleted(b));
        JsonNode failed = log.lines("Cannot list instances; skipping this provider until the next orphan sweep",
                l -> true).getFirst();
        assertEquals("a", field(failed, "provider"));
        assertEquals("Transient", field(failed, "errorKind"));
        assertEquals("backend unreachable", field(failed, "error"));
        assertEquals(List.of("instance:b", "sweep:partial"), recorder.reports());
    }

    @Test
    void shouldTreatAnUncheckedExceptionFromAProviderAsAFailedListing() {
        a.onCall(Op.LIST, () -> {
            throw new IllegalStateException("bug in a provider");
        });
        b.seed(instance("orphan-b", GONE, old()));

        assertEquals(new Sweep.Result(GcRecorder.PARTIAL, 1, 0, 1), sweep.run(() -> false));
    }

    @Test
    void shouldDeleteTheOtherOrphansWhenOneDeleteFailsAndRetryItNextTime() {
        a.seed(instance("orphan-1", GONE, old()));
        a.seed(instance("orphan-2", "uid-gone-too", old()));
        a.failNext(Op.DELETE, new ProviderException.Transient("timeout"));

        Sweep.Result first = sweep.run(() -> false);

        assertEquals(new Sweep.Result(GcRecorder.PARTIAL, 1, 0, 1), first);
        assertEquals(List.of("fake/orphan-2"), deleted(a));
        assertEquals("fake/orphan-1", field(log.lines("Cannot delete orphaned instance; retrying at the next orphan "
                + "sweep", l -> true).getFirst(), "providerID"));

        assertEquals(GcRecorder.COMPLETED, sweep.run(() -> false).outcome());
        assertEquals(List.of("fake/orphan-1", "fake/orphan-2"), deleted(a));
    }

    @Test
    void shouldDeleteOrphanedSecretsOfBothKindsAndKeepEachOtherByItsOwnRule() {
        OwnedSecret credentials = secret(Kind.CREDENTIALS, "gone-proxy-auth", GONE, old());
        OwnedSecret password = secret(Kind.POD_PASSWORD, "proxy-gone", GONE, old());
        List<OwnedSecret> kept = List.of(
                secret(Kind.CREDENTIALS, "unowned", null, old()),
                secret(Kind.CREDENTIALS, "young", GONE, clock.instant().minusSeconds(1)),
                secret(Kind.POD_PASSWORD, "ageless", GONE, null),
                secret(Kind.POD_PASSWORD, "live", LIVE, old()));
        cluster.secret(credentials).secret(password);
        kept.forEach(cluster::secret);

        Sweep.Result result = sweep.run(() -> false);

        assertEquals(new Sweep.Result(GcRecorder.COMPLETED, 0, 2, 0), result);
        assertEquals(List.of(credentials, password), cluster.deleted());
        assertEquals(List.of("secret:credentials", "secret:pod_password", "sweep:completed"), recorder.reports());
        assertEquals(Set.of("NoOwner", "TooYoung", "AgeUnknown", "OwnerLive"), log.lines("Keeping Secret", l -> true)
                .stream().map(l -> field(l, "reason")).collect(Collectors.toSet()));
        JsonNode line = log.lines("Deleted orphaned Secret", l -> field(l, "secret").equals("gone-proxy-auth")).getFirst();
        assertEquals("crawl", field(line, "namespace"));
        assertEquals("credentials", field(line, "kind"));
        assertEquals(GONE, field(line, "uid"));
    }

    @Test
    void shouldSweepTheOtherSecretsWhenAListingOrADeleteFails() {
        OwnedSecret failing = secret(Kind.POD_PASSWORD, "proxy-failing", GONE, old());
        OwnedSecret other = secret(Kind.POD_PASSWORD, "proxy-other", GONE, old());
        cluster.secret(secret(Kind.CREDENTIALS, "gone-proxy-auth", GONE, old())).secret(failing).secret(other);
        cluster.failList(Kind.CREDENTIALS);
        cluster.failDelete(failing);
        a.seed(instance("orphan", GONE, old()));

        Sweep.Result result = sweep.run(() -> false);

        assertEquals(new Sweep.Result(GcRecorder.PARTIAL, 1, 1, 2), result);
        assertEquals(List.of(other), cluster.deleted());
        assertEquals(1, log.lines("Cannot list Secrets; skipping them until the next orphan sweep",
                l -> field(l, "kind").equals("credentials")).size());
        assertEquals(1, log.lines("Cannot delete orphaned Secret; retrying at the next orphan sweep",
                l -> field(l, "secret").equals("proxy-failing")).size());
    }

    @Test
    void shouldNeitherCountNorReportASecretThatChangedOrWentBeforeItsDelete() {
        OwnedSecret changed = secret(Kind.POD_PASSWORD, "proxy-taken-over", GONE, old());
        cluster.secret(changed);
        cluster.changeBeforeDelete(changed);

        Sweep.Result result = sweep.run(() -> false);

        assertEquals(new Sweep.Result(GcRecorder.COMPLETED, 0, 0, 0), result);
        assertEquals(List.of(), log.lines("Deleted orphaned Secret", l -> true));
        assertEquals(List.of("sweep:completed"), recorder.reports());
    }

    @Test
    void shouldDeleteNothingOnceAskedToStop() {
        a.seed(instance("orphan", GONE, old()));
        cluster.secret(secret(Kind.CREDENTIALS, "gone-proxy-auth", GONE, old()));

        Sweep.Result result = sweep.run(() -> true);

        assertEquals(new Sweep.Result(GcRecorder.PARTIAL, 0, 0, 0), result);
        assertEquals(List.of(), deleted(a));
        assertEquals(List.of(), cluster.deleted());
    }

    @Test
    void shouldLogOneSummaryLinePerSweep() {
        a.seed(instance("orphan", GONE, old()));

        sweep.run(() -> false);

        JsonNode summary = log.lines("Finished orphan sweep", l -> true).getFirst();
        assertEquals("completed", field(summary, "result"));
        assertEquals("1", field(summary, "liveProxies"));
        assertEquals("1", field(summary, "instancesDeleted"));
    }

    @Test
    void shouldAskAProviderThatCollectsUnusedResourcesAfterItsInstancesAndLogWhatItDid() {
        List<String> calls = new ArrayList<>();
        Collecting collecting = new Collecting(a, calls, new CollectsUnused.Collected(
                List.of(new CollectsUnused.Deleted("hosts/hv1/pools/p/volumes/base.img", old())),
                List.of("host hv2: domain x cannot be read"), List.of("host hv3: cannot connect")));
        a.seed(instance("orphan", GONE, old()));
        Sweep withCollector = new Sweep(Registries.of("a", collecting, "b", b), cluster, new OrphanRule(MIN_AGE), clock,
                recorder, TracerProvider.noop().get("test"));

        Sweep.Result result = withCollector.run(() -> false);

        assertEquals(List.of("listByTag", "delete", "collectUnused@" + clock.instant()), calls);
        assertEquals(new Sweep.Result(GcRecorder.PARTIAL, 1, 0, 1), result, "the unreachable host is a failure");
        JsonNode deleted = log.lines("Deleted unused provider resource", l -> true).getFirst();
        assertEquals("warn", field(deleted, "level"));
        assertEquals("a", field(deleted, "provider"));
        assertEquals("hosts/hv1/pools/p/volumes/base.img", field(deleted, "resource"));
        assertEquals(old().toString(), field(deleted, "unusedSince"));
        assertEquals("host hv2: domain x cannot be read",
                field(log.lines("Deleting no unused resource of a provider target: what uses them cannot be read there",
                        l -> true).getFirst(), "reason"));
        assertEquals("host hv3: cannot connect",
                field(log.lines("Cannot collect unused provider resources; trying again at the next orphan sweep",
                        l -> true).getFirst(), "error"));
    }

    @Test
    void shouldNotCollectUnusedResourcesOnceAskedToStop() {
        List<String> calls = new ArrayList<>();
        Collecting collecting = new Collecting(a, calls, CollectsUnused.Collected.NOTHING);
        Sweep withCollector = new Sweep(Registries.of("a", collecting), cluster, new OrphanRule(MIN_AGE), clock,
                recorder, TracerProvider.noop().get("test"));

        withCollector.run(() -> true);

        assertEquals(List.of(), calls);
    }

    /** A provider that also collects resources of its own, recording the calls it gets. */
    private static final class Collecting extends ForwardingProvider implements CollectsUnused {
        private final List<String> calls;
        private final Collected answer;

        Collecting(Provider delegate, List<String> calls, Collected answer) {
            super(delegate);
            this.calls = calls;
            this.answer = answer;
        }

        @Override
        public List<Instance> listByTag() throws ProviderException {
            calls.add("listByTag");
            return super.listByTag();
        }

        @Override
        public void delete(String providerID) throws ProviderException {
            calls.add("delete");
            super.delete(providerID);
        }

        @Override
        public Collected collectUnused(Instant now, BooleanSupplier stopping) {
            calls.add("collectUnused@" + now);
            return answer;
        }
    }

    /** Seeds {@code kept} beside an orphan that differs only in its owner, and checks that only the orphan goes. */
    private void assertKeptAlone(Instance kept, String reason) {
        Instance orphan = instance("orphan", "uid-also-gone", old());
        a.seed(kept);
        a.seed(orphan);

        sweep.run(() -> false);

        assertEquals(List.of(orphan.providerID()), deleted(a));
        assertEquals(InstanceState.Provisioning, a.find(kept.providerID()).orElseThrow().state());
        assertEquals(reason, field(log.lines("Keeping instance", l -> field(l, "providerID").equals(kept.providerID()))
                .getFirst(), "reason"));
    }

    /** The providerIDs a delete was called for: the fake turns them Terminated. */
    private static List<String> deleted(FakeProvider provider) {
        return provider.instances().stream().filter(i -> i.state() == InstanceState.Terminated)
                .map(Instance::providerID).toList();
    }

    private Instant old() {
        return clock.instant().minus(MIN_AGE).minusSeconds(1);
    }

    private static Instance instance(String name, String ownerUid, Instant createdAt) {
        return new Instance(FakeProvider.providerID(name), name, ownerUid, InstanceState.Provisioning, null, createdAt);
    }

    private static OwnedSecret secret(Kind kind, String name, String ownerUid, Instant createdAt) {
        return new OwnedSecret(kind, "crawl", name, ownerUid, createdAt, "1");
    }
}
