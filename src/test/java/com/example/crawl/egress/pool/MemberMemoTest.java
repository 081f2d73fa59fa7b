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
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a pool pass may take from an earlier pass: only what it derived from the very same cached object. */
class MemberMemoTest {

    private static final Instant NOW = Instant.parse("2026-12-04T05:00:00Z");
    private final MemberMemo memo = new MemberMemo();

    @Test
    void shouldDeriveAMemberOnceForTheSameObjectAndAgainForItsNextVersion() {
        Proxy v1 = member("fleet-a", "uid-1", "2026-12-04T04:00:00Z");
        memo.begin(spec(3128));
        Member first = memo.member(v1, NOW);
        assertEquals("uid-1", memo.ownerUid(v1));
        memo.end();

        memo.begin(spec(3128));
        assertSame(first, memo.member(v1, NOW), "the cache handed out the same object: nothing to derive");
        Proxy v2 = member("fleet-a", "uid-2", "2026-12-04T04:30:00Z"); // the informer's next version of it
        Member second = memo.member(v2, NOW);
        assertNotSame(first, second);
        assertEquals(Instant.parse("2026-12-04T04:30:00Z"), second.created());
        assertEquals("uid-2", memo.ownerUid(v2));
    }

    @Test
    void shouldKeepAnInPlaceVerdictOnlyForTheSameObjectAndAnEqualSpec() {
        Proxy v1 = member("fleet-a", "uid-1", "2026-12-04T04:00:00Z");
        memo.begin(spec(3128));
        memo.matchesInPlace(v1);
        memo.end();

        memo.begin(spec(3128)); // another copy of an equal spec, as after a status write of the pool
        assertTrue(memo.inPlace(v1));
        assertFalse(memo.inPlace(member("fleet-a", "uid-1", "2026-12-04T04:00:00Z")), "a new version is looked at");
        memo.end();

        Proxy v3 = member("fleet-b", "uid-1", "2026-12-04T04:00:00Z");
        memo.begin(spec(3128));
        memo.matchesInPlace(v3);
        memo.end();
        memo.begin(spec(8080)); // the template changed: every member is compared with it again
        assertFalse(memo.inPlace(v3));
    }

    @Test
    void shouldForgetAMemberAPassDidNotSee() {
        Proxy gone = member("fleet-a", "uid-1", "2026-12-04T04:00:00Z");
        memo.begin(spec(3128));
        Member before = memo.member(gone, NOW);
        memo.end();
        memo.begin(spec(3128));
        memo.end(); // a pass without it: deleted from the cache

        memo.begin(spec(3128));
        assertNotSame(before, memo.member(gone, NOW), "derived again, not kept for a member that left");
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
