package com.example.crawl.egress.replication;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.lease.LeaseState;
import com.example.crawl.egress.lease.ReportResult;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

/** The lease state's bytes: what a leader writes, a follower or the next leader reads the same, in this format and the one before. */
class StateCodecTest {

    private static final Instant AT = Instant.parse("2026-12-02T12:00:00Z");

    @Test
    void shouldReadBackEverythingItWrites() {
        LeaseState state = new LeaseState(7,
                List.of(new LeaseState.HeldLease("d1", "crawl/a", "198.51.100.7", Optional.of("shop.test"), AT.plusSeconds(300)),
                        new LeaseState.HeldLease("d2", "crawl/b", Optional.empty(), AT.plusSeconds(60)),
                        new LeaseState.HeldLease("d4", "crawl/b", "crawl/b", Optional.empty(), AT.plusSeconds(90),
                                Optional.of("nightly-prices"))),
                List.of(new LeaseState.CooldownEnd("198.51.100.7", "shop.test", AT.plusSeconds(1200), Duration.ofMinutes(20),
                                ReportResult.BANNED),
                        new LeaseState.CooldownEnd("crawl/b", "", AT.plusSeconds(60), Duration.ZERO, ReportResult.RATE_LIMITED)),
                List.of(new LeaseState.TargetTime("crawl/a", "shop.test", AT)),
                List.of(new LeaseState.Released("d3", AT.plusSeconds(900))),
                List.of(new LeaseState.Suspect("crawl/c", AT.minusSeconds(5))),
                List.of(new LeaseState.TargetTime("crawl/b", "crawl/shop policy", AT.plusSeconds(2))),
                List.of(new LeaseState.SessionEnd("cart-7f3a", "crawl/b", AT.plusSeconds(600)),
                        new LeaseState.SessionEnd("x".repeat(128), "crawl/d", AT.plusSeconds(30)),
                        new LeaseState.SessionEnd("nightly-prices/cart-7f3a", "crawl/a", AT.plusSeconds(40))));

        assertEquals(state, StateCodec.decode(StateCodec.encode(state), StateSecrets.FORMAT, 7));
    }

    /**
     * Sessions came later within format 2: a state an earlier build wrote holds none, and is read;
     * the sessions of a later one keep the order they were lent in.
     */
    @Test
    void shouldReadAFormat2StateWithoutSessionsAndKeepTheOrderOfOneWithThem() {
        String earlier = "{\"proxies\":[\"crawl/a\"],\"leases\":[],\"cooldowns\":[],\"bans\":[],\"released\":[],"
                + "\"suspects\":[],\"lent\":[[0,\"shop.test\"," + AT.toEpochMilli() + "]]}";
        String later = "{\"proxies\":[\"crawl/a\"],\"leases\":[],\"cooldowns\":[],\"bans\":[],\"released\":[],"
                + "\"suspects\":[],\"sessions\":[[\"s2\",0," + AT.toEpochMilli() + "],[\"s1\",0,"
                + AT.minusSeconds(1).toEpochMilli() + "]]}";

        assertEquals(List.of(), StateCodec.decode(gzip(earlier), 2, 4).sessions());
        assertEquals(1, StateCodec.decode(gzip(earlier), 2, 4).lent().size());
        assertEquals(List.of(new LeaseState.SessionEnd("s2", "crawl/a", AT),
                new LeaseState.SessionEnd("s1", "crawl/a", AT.minusSeconds(1))),
                StateCodec.decode(gzip(later), 2, 4).sessions());
    }

    @Test
    void shouldRefuseASessionIdNoClientCouldHaveSent() {
        String badId = "{\"proxies\":[\"crawl/a\"],\"leases\":[],\"cooldowns\":[],\"bans\":[],\"released\":[],"
                + "\"suspects\":[],\"sessions\":[[\"" + "x".repeat(129) + "\",0,1]]}";

        assertThrows(IllegalArgumentException.class, () -> StateCodec.decode(gzip(badId), 2, 1));
    }

    /** Pacing came later within format 2: a state an earlier build of it wrote paces nothing, and is read. */
    @Test
    void shouldReadAFormat2StateWithoutPacing() {
        String earlier = "{\"proxies\":[\"crawl/a\"],\"leases\":[],\"cooldowns\":[],"
                + "\"bans\":[],\"released\":[],\"suspects\":[[0," + AT.toEpochMilli() + "]]}";

        LeaseState read = StateCodec.decode(gzip(earlier), 2, 4);

        assertEquals(List.of(), read.lent());
        assertEquals(List.of(new LeaseState.Suspect("crawl/a", AT)), read.suspects());
    }

    /** Egress identities came later within format 2: a lease row of four was lent as its proxy. */
    @Test
    void shouldReadALeaseWithoutAnIdentityAsLentToItsProxy() {
        String earlier = "{\"proxies\":[\"crawl/a\"],\"leases\":[[\"d1\",0,\"shop.test\"," + AT.toEpochMilli() + "]],"
                + "\"cooldowns\":[],\"bans\":[],\"released\":[],\"suspects\":[]}";

        LeaseState read = StateCodec.decode(gzip(earlier), 2, 4);

        assertEquals(List.of(new LeaseState.HeldLease("d1", "crawl/a", "crawl/a", Optional.of("shop.test"), AT)),
                read.leases());
    }

    @Test
    void shouldReadTheFormatBeforeAsUnescalatedCooldownsAndNoSuspects() {
        String format1 = "{\"proxies\":[\"crawl/a\"],\"leases\":[[\"d1\",0,null," + AT.toEpochMilli() + "]],"
                + "\"cooldowns\":[[0,\"shop.test\"," + AT.plusSeconds(600).toEpochMilli() + "]],"
                + "\"bans\":[[0,\"shop.test\"," + AT.toEpochMilli() + "]],\"released\":[]}";

        LeaseState read = StateCodec.decode(gzip(format1), 1, 3);

        assertEquals(List.of(new LeaseState.CooldownEnd("crawl/a", "shop.test", AT.plusSeconds(600), Duration.ZERO,
                ReportResult.BANNED)), read.cooldowns(), "a rolling update from format 1 keeps every cooldown");
        assertEquals(List.of(), read.suspects());
        assertEquals(1, read.leases().size());
    }

    @Test
    void shouldRefuseAFormatItDoesNotReadAndACooldownOfNoBadOutcome() {
        byte[] written = StateCodec.encode(LeaseState.EMPTY);
        IllegalArgumentException newer = assertThrows(IllegalArgumentException.class,
                () -> StateCodec.decode(written, StateSecrets.FORMAT + 1, 1));
        assertTrue(newer.getMessage().contains("format " + (StateSecrets.FORMAT + 1)), newer.getMessage());

        String failedCooldown = "{\"proxies\":[\"crawl/a\"],\"leases\":[],\"cooldowns\":[[0,\"x\",1,1,\"failed\"]],"
                + "\"bans\":[],\"released\":[],\"suspects\":[]}";
        assertThrows(IllegalArgumentException.class, () -> StateCodec.decode(gzip(failedCooldown), 2, 1));
        String noSuspects = "{\"proxies\":[],\"leases\":[],\"cooldowns\":[],\"bans\":[],\"released\":[]}";
        assertThrows(IllegalArgumentException.class, () -> StateCodec.decode(gzip(noSuspects), 2, 1),
                "format 2 without its suspects is a truncation, not an empty list");
    }

    private static byte[] gzip(String json) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (GZIPOutputStream out = new GZIPOutputStream(bytes)) {
            out.write(json.getBytes(UTF_8));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        return bytes.toByteArray();
    }
}
