package com.example.crawl.egress.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyPool;
import com.example.crawl.egress.api.ProxyPoolSpec;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.ProxyTemplate;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a pool pass may take from an earlier pass: only what it derived from the very same cached object. */
class MemberMemoTest {

    private static final Instant NOW = Instant.parse("2026-12-04T05:00:00Z");
    private final MemberMemo memo = new MemberMemo();

    @Test
    void shouldDeriveAMemberOnceForTheSameObjectAndAgainForItsNextVersion() {
        Proxy v1 = member("fleet-a", "uid-1", "2026-12-04T04:00:00Z");
        memo.begin(spec(3128), "uid-1");
        MemberMemo.Seen seen = only(memo.see(List.of(v1)));
        Member first = seen.member(NOW);
        assertEquals("uid-1", seen.ownerUid);
        memo.end();

        memo.begin(spec(3128), "uid-1");
        assertSame(first, only(memo.see(List.of(v1))).member(NOW), "the cache handed out the same object: nothing to derive");
        Proxy v2 = member("fleet-a", "uid-2", "2026-12-04T04:30:00Z"); // the informer's next version of it
        MemberMemo.Seen next = only(memo.see(List.of(v2)));
        assertNotSame(first, next.member(NOW));
        assertEquals(Instant.parse("2026-12-04T04:30:00Z"), next.member(NOW).created());
        assertEquals("uid-2", next.ownerUid);
    }

    @Test
    void shouldKeepAnInPlaceVerdictOnlyForTheSameObjectAndAnEqualSpec() {
        Proxy v1 = member("fleet-a", "uid-1", "2026-12-04T04:00:00Z");
        memo.begin(spec(3128), "uid-1");
        memo.matchesInPlace(only(memo.see(List.of(v1))).member(NOW));
        memo.end();

        memo.begin(spec(3128), "uid-1"); // another copy of an equal spec, as after a status write of the pool
        assertTrue(memo.inPlace(only(memo.see(List.of(v1))).member(NOW)));
        Proxy copy = member("fleet-a", "uid-1", "2026-12-04T04:00:00Z");
        assertFalse(memo.inPlace(only(memo.see(List.of(copy))).member(NOW)), "a new version is looked at");
        memo.end();

        Proxy v3 = member("fleet-b", "uid-1", "2026-12-04T04:00:00Z");
        memo.begin(spec(3128), "uid-1");
        memo.matchesInPlace(only(memo.see(List.of(v3))).member(NOW));
        memo.end();
        memo.begin(spec(8080), "uid-1"); // the template changed: every member is compared with it again
        assertFalse(memo.inPlace(only(memo.see(List.of(v3))).member(NOW)));
    }

    @Test
    void shouldForgetAMemberAPassDidNotSee() {
        Proxy gone = member("fleet-a", "uid-1", "2026-12-04T04:00:00Z");
        memo.begin(spec(3128), "uid-1");
        Member before = only(memo.see(List.of(gone))).member(NOW);
        memo.end();
        memo.begin(spec(3128), "uid-1");
        memo.see(List.of());
        assertFalse(memo.alive("fleet-a"), "not in this pass's cache");
        memo.end(); // a pass without it: deleted from the cache

        memo.begin(spec(3128), "uid-1");
        assertNotSame(before, only(memo.see(List.of(gone))).member(NOW), "derived again, not kept for a member that left");
    }

    @Test
    void shouldTellThePoolsOwnLiveMembersFromForeignAndDeletingOnes() {
        Proxy own = member("fleet-a", "uid-1", "2026-12-04T04:00:00Z");
        Proxy foreign = member("fleet-b", "uid-0", "2026-12-04T04:00:00Z");
        Proxy leaving = member("fleet-c", "uid-1", "2026-12-04T04:00:00Z");
        leaving.getMetadata().setDeletionTimestamp("2026-12-04T04:59:00Z");
        memo.begin(spec(3128), "uid-1");
        List<MemberMemo.Seen> seen = memo.see(List.of(own, foreign, leaving));

        assertTrue(seen.get(0).owned);
        assertFalse(seen.get(1).owned);
        assertEquals("uid-0", seen.get(1).ownerUid);
        assertTrue(memo.alive("fleet-a"));
        assertFalse(memo.alive("fleet-b"), "another pool's");
        assertFalse(memo.alive("fleet-c"), "being deleted");
        assertFalse(memo.alive("fleet-x"), "never seen");
        memo.end();

        memo.begin(spec(3128), "uid-0"); // a new pool of the name, which the cache shows before its members
        List<MemberMemo.Seen> again = memo.see(List.of(own, foreign));
        assertFalse(again.get(0).owned, "judged against the pool it is now");
        assertTrue(again.get(1).owned);
    }

    private static MemberMemo.Seen only(List<MemberMemo.Seen> seen) {
        assertEquals(1, seen.size());
        return seen.get(0);
    }

    private static Proxy member(String name, String ownerUid, String created) {
        ProxyPool pool = new ProxyPool();
        pool.setMetadata(new ObjectMetaBuilder().withNamespace("crawl").withName("fleet").withUid(ownerUid).build());
        Proxy p = new Proxy();
        p.setMetadata(new ObjectMetaBuilder().withNamespace("crawl").withName(name).withCreationTimestamp(created)
                .withOwnerReferences(MemberObjects.owner(pool)).build());
        return p;
    }

    private static ProxyPoolSpec spec(int port) {
        return new ProxyPoolSpec(2, new ProxyTemplate(null, new ProxySpec(null, "local", port, Map.of(), null, null,
                null, null, null, null, null)), null, null);
    }
}
