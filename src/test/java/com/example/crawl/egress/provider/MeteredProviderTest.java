package com.example.crawl.egress.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.example.crawl.egress.clock.FakeClock;
import com.example.crawl.egress.provider.FakeProvider.Op;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class MeteredProviderTest {
    private static final Duration CALL_TIME = Duration.ofMillis(250);

    record Call(String provider, String op, String result, Duration elapsed) { }

    private final List<Call> recorded = new ArrayList<>();
    private final AtomicLong nanos = new AtomicLong(42);
    private final FakeProvider fake = new FakeProvider(new FakeClock(Instant.parse("2025-06-01T10:00:00Z")));
    private final Provider metered = ProviderDecorator.metered(
            (provider, op, result, elapsed) -> recorded.add(new Call(provider, op, result, elapsed)), nanos::get)
            .decorate("gcp-eu", fake);

    MeteredProviderTest() {
        // Every call of the fake takes CALL_TIME on the injected clock.
        for (Op op : Op.values()) {
            fake.onCall(op, () -> nanos.addAndGet(CALL_TIME.toNanos()));
        }
    }

    @Test
    void shouldRecordEverySuccessfulCallWithItsDuration() throws Exception {
        Instance made = metered.create(FakeProviderTest.request("proxy-a", "uid-a"));
        assertEquals(made, metered.get(made.providerID()));
        assertEquals(List.of(made), metered.listByTag());
        metered.delete(made.providerID());

        assertEquals(List.of(
                new Call("gcp-eu", "create", "ok", CALL_TIME),
                new Call("gcp-eu", "get", "ok", CALL_TIME),
                new Call("gcp-eu", "list", "ok", CALL_TIME),
                new Call("gcp-eu", "delete", "ok", CALL_TIME)), recorded);
    }

    static List<ProviderException> faults() {
        return List.of(new ProviderException.NotFound("gone"), new ProviderException.Transient("503"),
                new ProviderException.QuotaExceeded("CPUS"), new ProviderException.Permanent("no image"));
    }

    @ParameterizedTest
    @MethodSource("faults")
    void shouldRecordEachErrorClassAndRethrowTheSameException(ProviderException fault) {
        fake.failNext(Op.GET, fault);

        ProviderException thrown = assertThrows(ProviderException.class, () -> metered.get("fake/proxy-a"));

        assertSame(fault, thrown);
        assertEquals(List.of(new Call("gcp-eu", "get", fault.kind(), CALL_TIME)), recorded);
    }

    @Test
    void shouldRecordAnUncheckedExceptionAsTransientAndRethrowIt() {
        IllegalStateException bug = new IllegalStateException("bug in a provider");
        fake.onCall(Op.LIST, () -> {
            nanos.addAndGet(CALL_TIME.toNanos());
            throw bug;
        });

        assertSame(bug, assertThrows(IllegalStateException.class, metered::listByTag));
        assertEquals(List.of(new Call("gcp-eu", "list", "Transient", CALL_TIME)), recorded);
    }

    @Test
    void shouldRecordOneCallPerAttempt() throws Exception {
        fake.failNext(Op.CREATE, new ProviderException.Transient("timeout"));

        assertThrows(ProviderException.Transient.class, () -> metered.create(FakeProviderTest.request("proxy-a", "uid-a")));
        metered.create(FakeProviderTest.request("proxy-a", "uid-a"));

        assertEquals(List.of("Transient", "ok"), recorded.stream().map(Call::result).toList());
        assertEquals(2, fake.calls(Op.CREATE));
    }
}
