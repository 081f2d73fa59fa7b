package com.example.crawl.egress.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.clock.FakeClock;
import com.example.crawl.egress.provider.FakeProvider.Gate;
import com.example.crawl.egress.provider.FakeProvider.Op;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class FakeProviderTest {
    private static final Instant T0 = Instant.parse("2025-06-01T10:00:00Z");

    private final FakeClock clock = new FakeClock(T0);
    private final FakeProvider fake = new FakeProvider(clock);

    @Test
    void shouldCreateAProvisioningInstanceOwnedByTheRequester() throws Exception {
        Instance made = fake.create(request("proxy-a", "uid-a"));

        assertEquals(new Instance("fake/proxy-a", "proxy-a", "uid-a", InstanceState.Provisioning, null, T0), made);
        assertEquals(Optional.of(made), fake.find("fake/proxy-a"));
    }

    @Test
    void shouldReturnTheExistingInstanceWhenTheSameNameIsCreatedAgain() throws Exception {
        fake.create(request("proxy-a", "uid-a"));
        fake.markRunning("fake/proxy-a", "10.0.0.7");
        clock.advance(Duration.ofMinutes(1));

        Instance again = fake.create(request("proxy-a", "uid-a"));

        assertEquals(new Instance("fake/proxy-a", "proxy-a", "uid-a", InstanceState.Running, "10.0.0.7", T0), again);
        assertEquals(1, fake.instances().size());
    }

    @Test
    void shouldSucceedDeletingAnInstanceThatDoesNotExist() throws Exception {
        fake.delete("fake/nothing");

        assertEquals(List.of(), fake.instances());
        assertEquals(1, fake.calls(Op.DELETE));
    }

    @Test
    void shouldThrowNotFoundForAnInstanceThatDoesNotExist() {
        ProviderException.NotFound e = assertThrows(ProviderException.NotFound.class, () -> fake.get("fake/nothing"));

        assertTrue(e.getMessage().contains("fake/nothing"), e.getMessage());
    }

    @Test
    void shouldReportStatesTheTestSets() throws Exception {
        fake.create(request("proxy-a", "uid-a"));

        fake.markRunning("fake/proxy-a", "10.0.0.7");
        assertEquals(InstanceState.Running, fake.get("fake/proxy-a").state());
        assertEquals("10.0.0.7", fake.get("fake/proxy-a").ip());

        fake.markStopped("fake/proxy-a");
        assertEquals(InstanceState.Stopped, fake.get("fake/proxy-a").state());
        assertEquals(null, fake.get("fake/proxy-a").ip());

        fake.markTerminated("fake/proxy-a");
        assertEquals(InstanceState.Terminated, fake.get("fake/proxy-a").state());
    }

    @Test
    void shouldShowADeletedInstanceAsTerminatedUntilTheNextGetFindsItGone() throws Exception {
        fake.create(request("proxy-a", "uid-a"));

        fake.delete("fake/proxy-a");

        assertEquals(InstanceState.Terminated, fake.find("fake/proxy-a").orElseThrow().state());
        assertEquals(1, fake.listByTag().size());
        assertThrows(ProviderException.NotFound.class, () -> fake.get("fake/proxy-a"));
        assertEquals(Optional.empty(), fake.find("fake/proxy-a"));
        assertEquals(InstanceState.Provisioning, fake.create(request("proxy-a", "uid-a")).state());
    }

    @Test
    void shouldThrowAOneShotFaultOnceThenWorkAgain() throws Exception {
        ProviderException quota = new ProviderException.QuotaExceeded("CPUS");
        fake.failNext(Op.CREATE, quota);

        assertSame(quota, assertThrows(ProviderException.class, () -> fake.create(request("proxy-a", "uid-a"))));
        assertEquals(List.of(), fake.instances());
        assertEquals("proxy-a", fake.create(request("proxy-a", "uid-a")).name());
        assertEquals(2, fake.calls(Op.CREATE));
    }

    @Test
    void shouldThrowQueuedOneShotFaultsInOrderBeforeAStandingOne() throws Exception {
        fake.failAlways(Op.LIST, new ProviderException.Permanent("always"));
        fake.failNext(Op.LIST, new ProviderException.Transient("first"));
        fake.failNext(Op.LIST, new ProviderException.NotFound("second"));

        List<String> seen = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            seen.add(assertThrows(ProviderException.class, fake::listByTag).getMessage());
        }

        assertEquals(List.of("first", "second", "always", "always"), seen);
    }

    @Test
    void shouldStopFailingOnceFaultsAreCleared() throws Exception {
        fake.failAlways(Op.GET, new ProviderException.Transient("down"));
        fake.failAlways(Op.LIST, new ProviderException.Transient("down"));
        fake.clearFaults(Op.LIST);

        assertEquals(List.of(), fake.listByTag());
        assertThrows(ProviderException.Transient.class, () -> fake.get("fake/x"));
        fake.clearFaults();
        assertThrows(ProviderException.NotFound.class, () -> fake.get("fake/x"));
    }

    @Test
    void shouldListEveryInstanceWithOwnerAndCreationTime() throws Exception {
        fake.create(request("proxy-b", "uid-b"));
        clock.advance(Duration.ofHours(2));
        fake.create(request("proxy-a", "uid-a"));
        fake.seed(new Instance("fake/unlabelled", "unlabelled", null, InstanceState.Running, "10.0.0.9", null));

        List<Instance> listed = fake.listByTag();

        assertEquals(List.of("fake/proxy-a", "fake/proxy-b", "fake/unlabelled"),
                listed.stream().map(Instance::providerID).toList());
        assertEquals("uid-a", listed.get(0).ownerUid());
        assertEquals(T0.plus(Duration.ofHours(2)), listed.get(0).createdAt());
        assertEquals(T0, listed.get(1).createdAt());
        assertEquals(null, listed.get(2).ownerUid());
    }

    @Test
    void shouldKeepTheRequestThatCreatedAnInstance() throws Exception {
        CreateRequest req = request("proxy-a", "uid-a");
        fake.create(req);

        assertEquals(Optional.of(req), fake.request("fake/proxy-a"));
    }

    @Test
    void shouldHoldACallAtAGateUntilReleased() throws Exception {
        Gate gate = new Gate();
        fake.onCall(Op.CREATE, gate);

        CompletableFuture<Instance> held = CompletableFuture.supplyAsync(() -> createUnchecked("proxy-a"));
        gate.awaitArrival();

        assertFalse(held.isDone());
        assertEquals(List.of(), fake.instances());
        assertEquals(List.of(), fake.listByTag());
        gate.release();
        assertEquals("fake/proxy-a", held.get(10, TimeUnit.SECONDS).providerID());
    }

    @Test
    void shouldCreateOneInstancePerNameHoweverManyThreadsRace() throws Exception {
        int threads = 8;
        CountDownLatch start = new CountDownLatch(1);
        fake.onCall(Op.CREATE, start::await);
        List<Future<Instance>> results = new ArrayList<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
            for (int i = 0; i < threads * 4; i++) {
                String name = "proxy-" + (i % 4);
                results.add(pool.submit(() -> fake.create(request(name, "uid-" + name))));
            }
            start.countDown();
            for (Future<Instance> r : results) {
                assertEquals(InstanceState.Provisioning, r.get(10, TimeUnit.SECONDS).state());
            }
        }

        assertEquals(4, fake.instances().size());
        assertEquals(threads * 4, fake.calls(Op.CREATE));
        Set<Instance> distinct = Collections.newSetFromMap(new IdentityHashMap<>());
        results.forEach(r -> distinct.add(join(r)));
        assertEquals(4, distinct.size(), "one instance object per name");
    }

    private Instance createUnchecked(String name) {
        try {
            return fake.create(request(name, "uid-" + name));
        } catch (ProviderException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Instance join(Future<Instance> f) {
        try {
            return f.get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static CreateRequest request(String name, String uid) {
        return new CreateRequest(name, uid, "crawl", "px-" + name, 3128, null, TestCredentials.ANY, null, null, null);
    }
}
