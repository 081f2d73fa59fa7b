package com.example.crawl.egress.pool;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyPoolSpec;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a pool's passes derived from each member's cached object, kept while the cache hands out
 * the same object. The informer replaces an object on every change and never changes one in
 * place, so an object seen by an earlier pass needs no second look. In a roll every member's event
 * queues its pool and every pass reads every member: deriving each one again (its owner, its
 * phase and times, whether it matches the template in place) was three quarters of the pool
 * workers' samples in a JFR profile of a roll of 2,000 members, and looking each member up again
 * for each of those, and comparing its owner's UID, a third of what was left; so a pass looks each
 * member up once, in {@link #see}, and works with what that hands it, and once more for each
 * member it keeps, for that member's in-place verdict ({@link #inPlace}).
 *
 * <p>Not thread-safe: one per pool, used only by the worker that holds the pool's key.
 */
final class MemberMemo {

    /** One member's cached object and what passes derived from it. */
    static final class Seen {
        final Proxy proxy;
        /** The UID its controller reference names, or null. */
        final String ownerUid;
        /** Whether that is the UID of the pool this memo is for. */
        final boolean owned;
        final boolean deleting;
        private Member member;
        private boolean inPlace;
        private long pass;

        private Seen(Proxy proxy, String poolUid) {
            this.proxy = proxy;
            this.ownerUid = MemberObjects.ownerUid(proxy);
            this.owned = poolUid.equals(ownerUid);
            this.deleting = proxy.getMetadata().getDeletionTimestamp() != null;
        }

        String name() {
            return proxy.getMetadata().getName();
        }

        /** The member as the plan sees it; {@code now} stands in for a creation time the object lacks. */
        Member member(Instant now) {
            if (member == null) {
                member = Member.of(proxy, now);
            }
            return member;
        }
    }

    private final Map<String, Seen> seen = new HashMap<>();
    private ProxyPoolSpec spec;
    private String uid;
    private long pass;

    /**
     * Starts a pass over the pool as it is now. The members' in-place verdicts hold only for the spec
     * they were reached against, which is where the templates come from; whether a member is owned
     * holds only for the pool it was judged against, so a new pool of the name starts afresh.
     */
    void begin(ProxyPoolSpec now, String poolUid) {
        pass++;
        if (!poolUid.equals(uid)) {
            uid = poolUid;
            seen.clear();
        }
        if (!Objects.equals(spec, now)) {
            spec = now;
            seen.values().forEach(s -> s.inPlace = false);
        }
    }

    /** The pass's entry of each cached member, in the order given: one lookup each. */
    List<Seen> see(List<Proxy> members) {
        List<Seen> out = new ArrayList<>(members.size());
        for (Proxy p : members) {
            String name = p.getMetadata().getName();
            Seen s = seen.get(name);
            if (s == null || s.proxy != p) {
                s = new Seen(p, uid);
                seen.put(name, s);
            }
            s.pass = pass;
            out.add(s);
        }
        return out;
    }

    /**
     * Whether this pass saw {@code name} as a member of the pool that is not being deleted: what the
     * cache shows of a create or delete this process made.
     */
    boolean alive(String name) {
        Seen s = seen.get(name);
        return s != null && s.pass == pass && !s.deleting && s.owned;
    }

    /** Whether this pass's member was found to match the current spec's template in place. */
    boolean inPlace(Member m) {
        Seen s = seen.get(m.name());
        return s != null && s.member == m && s.inPlace;
    }

    void matchesInPlace(Member m) {
        Seen s = seen.get(m.name());
        if (s != null && s.member == m) {
            s.inPlace = true;
        }
    }

    /** Ends a pass: the members it did not see are gone from the cache, and forgotten. */
    void end() {
        seen.values().removeIf(s -> s.pass != pass);
    }
}
