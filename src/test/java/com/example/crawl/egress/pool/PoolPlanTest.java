package com.example.crawl.egress.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.ProxyPool.RetireReason;
import com.example.crawl.egress.pool.PoolPlan.Decision;
import com.example.crawl.egress.pool.PoolPlan.Limits;
import com.example.crawl.egress.pool.PoolPlan.Rules;
import com.example.crawl.egress.pool.PoolPlan.Weighted;
import com.example.crawl.egress.api.Proxy;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The decisions of one pass, on members made up for each case. */
class PoolPlanTest {

    private static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");
    private static final Map<String, Weighted> ONE = Map.of("a", new Weighted("h1", 1));

    private int serial;

    @Test
    void shouldCreateEveryMemberOfANewPoolInOnePassWithinTheSurge() {
        Decision d = PoolPlan.decide(new Limits(10, 3, 2), ONE, List.of(), Rules.NONE, NOW);

        assertEquals(10, d.create().size());
        assertEquals(List.of(), d.delete());
    }

    @Test
    void shouldCreateAtMostABurstInOnePassAndAskForTheNext() {
        Decision d = PoolPlan.decide(new Limits(1200, 300, 300), ONE, List.of(), Rules.NONE, NOW);

        assertEquals(PoolPlan.MAX_CREATES, d.create().size());
        assertTrue(d.more());
        assertFalse(PoolPlan.decide(new Limits(10, 3, 2), ONE, List.of(), Rules.NONE, NOW).more());
    }

    @Test
    void shouldNotCreateAgainWhatItCreatedAndTheCacheDoesNotShowYet() {
        List<Member> ghosts = List.of(ghost("a", "h1"), ghost("a", "h1"));

        Decision d = PoolPlan.decide(new Limits(2, 1, 0), ONE, ghosts, Rules.NONE, NOW);

        assertTrue(d.idle(), () -> d.toString());
    }

    @Test
    void shouldSpreadNewMembersByWeight() {
        Map<String, Weighted> three = new LinkedHashMap<>();
        three.put("eu-b", new Weighted("h1", 2));
        three.put("eu-c", new Weighted("h2", 1));
        three.put("kvm", new Weighted("h3", 1));

        Decision d = PoolPlan.decide(new Limits(20, 5, 0), three, List.of(), Rules.NONE, NOW);

        assertEquals(Map.of("eu-b", 10L, "eu-c", 5L, "kvm", 5L),
                d.create().stream().collect(Collectors.groupingBy(p -> p, Collectors.counting())));
    }

    @Test
    void shouldFillThePlacementFurthestBelowItsShare() {
        Map<String, Weighted> two = new LinkedHashMap<>();
        two.put("a", new Weighted("h1", 1));
        two.put("b", new Weighted("h2", 1));
        List<Member> members = List.of(ready("a", "h1", 10), ready("a", "h1", 9), ready("a", "h1", 8));

        Decision d = PoolPlan.decide(new Limits(5, 2, 0), two, members, Rules.NONE, NOW);

        assertEquals(List.of("b", "b"), d.create());
    }

    @Test
    void shouldScaleDownNotReadyFirstThenFromTheFullestPlacementOldestFirst() {
        Map<String, Weighted> two = new LinkedHashMap<>();
        two.put("a", new Weighted("h1", 1));
        two.put("b", new Weighted("h2", 1));
        Member oldestA = ready("a", "h1", 50);
        Member youngA = ready("a", "h1", 10);
        Member olderA = ready("a", "h1", 40);
        Member oldestB = ready("b", "h2", 60);
        Member starting = starting("b", "h2", 1);

        Decision d = PoolPlan.decide(new Limits(2, 1, 0), two, List.of(oldestA, youngA, olderA, oldestB, starting),
                Rules.NONE, NOW);

        assertEquals(List.of(starting, oldestA, olderA), d.delete());
        assertEquals(List.of(), d.create());
    }

    @Test
    void shouldRollATemplateChangeOneSurgeAtATimeKeepingEveryReadyMember() {
        List<Member> old = List.of(ready("a", "old", 30), ready("a", "old", 20), ready("a", "old", 10));

        Decision d = PoolPlan.decide(new Limits(3, 1, 0), ONE, old, Rules.NONE, NOW);

        assertEquals(List.of("a"), d.create());
        assertEquals(List.of(), d.delete(), "no Ready member goes before its replacement is Ready");
        assertEquals(List.of(new PoolPlan.Retirement(old.get(0), RetireReason.TemplateChanged)), d.retire(),
                "the oldest makes way for the new member and is no longer lent");
    }

    @Test
    void shouldDeleteARetiredMemberOnceItsReplacementIsReady() {
        Member retired = retired(ready("a", "old", 30), RetireReason.TemplateChanged);
        List<Member> members = List.of(retired, ready("a", "old", 20), ready("a", "old", 10), ready("a", "h1", 1));

        Decision d = PoolPlan.decide(new Limits(3, 1, 0), ONE, members, Rules.NONE, NOW);

        assertEquals(List.of(retired), d.delete());
        assertEquals(List.of("a"), d.create(), "the freed room is used in the same pass");
        assertEquals(1, d.retire().size());
    }

    @Test
    void shouldWaitWhileTheReplacementIsNotReady() {
        Member retired = retired(ready("a", "old", 30), RetireReason.TemplateChanged);
        List<Member> members = List.of(retired, ready("a", "old", 20), ready("a", "old", 10), starting("a", "h1", 1));

        Decision d = PoolPlan.decide(new Limits(3, 1, 0), ONE, members, Rules.NONE, NOW);

        assertTrue(d.idle(), () -> d.toString());
    }

    @Test
    void shouldUseMaxUnavailableToRemoveBeforeReplacing() {
        List<Member> old = List.of(ready("a", "old", 30), ready("a", "old", 20), ready("a", "old", 10),
                ready("a", "old", 5));

        Decision d = PoolPlan.decide(new Limits(4, 0, 1), ONE, old, Rules.NONE, NOW);

        assertEquals(List.of(old.get(0)), d.delete());
        assertEquals(List.of("a"), d.create());
    }

    @Test
    void shouldRetireABannedMemberAtOnceAndKeepItUntilItsReplacementIsReady() {
        Member banned = ready("a", "h1", 30);
        Rules rules = new Rules(Optional.empty(), Optional.empty(), Optional.of(3),
                m -> m == banned ? 3 : 2);

        Decision d = PoolPlan.decide(new Limits(2, 1, 0), ONE, List.of(banned, ready("a", "h1", 20)), rules, NOW);

        assertEquals(List.of(new PoolPlan.Retirement(banned, RetireReason.Banned)), d.retire());
        assertEquals(List.of(), d.delete());
        assertEquals(List.of("a"), d.create());
    }

    @Test
    void shouldReplaceAMemberUnhealthyForLongerThanTheLimitAndDeleteItAtOnce() {
        Member sick = unhealthy("a", "h1", 100, Duration.ofMinutes(6));
        Member recent = unhealthy("a", "h1", 100, Duration.ofMinutes(4));
        Rules rules = new Rules(Optional.empty(), Optional.of(Duration.ofMinutes(5)), Optional.empty(), m -> 0);

        Decision d = PoolPlan.decide(new Limits(3, 1, 0), ONE, List.of(sick, recent, ready("a", "h1", 5)), rules, NOW);

        assertEquals(List.of(new PoolPlan.Retirement(sick, RetireReason.Unhealthy)), d.retire());
        assertEquals(List.of(sick), d.delete(), "an unhealthy member serves nobody: no reason to keep it");
        assertEquals(List.of("a"), d.create());
        assertEquals(Optional.of(NOW.plus(Duration.ofMinutes(1))), d.nextCheck(), "when the other one is due");
    }

    @Test
    void shouldRotateMembersOlderThanMaxAgeOneSurgeAtATime() {
        Rules rules = new Rules(Optional.of(Duration.ofHours(24)), Optional.empty(), Optional.empty(), m -> 0);
        Member old = ready("a", "h1", 25 * 60);
        Member older = ready("a", "h1", 26 * 60);
        Member young = ready("a", "h1", 60);

        Decision d = PoolPlan.decide(new Limits(3, 1, 0), ONE, List.of(old, older, young), rules, NOW);

        assertEquals(List.of(new PoolPlan.Retirement(older, RetireReason.MaxAge)), d.retire());
        assertEquals(List.of("a"), d.create());
        assertEquals(List.of(), d.delete());
    }

    @Test
    void shouldNeverExceedReplicasPlusSurge() {
        List<Member> members = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            members.add(ready("a", "old", 100 - i));
        }
        members.add(starting("a", "h1", 1));
        members.add(ghost("a", "h1"));

        Decision d = PoolPlan.decide(new Limits(5, 2, 0), ONE, members, Rules.NONE, NOW);

        assertEquals(0, d.create().size());
    }

    @Test
    void shouldMoveMembersOfARemovedPlacement() {
        Map<String, Weighted> onlyB = Map.of("b", new Weighted("h2", 1));
        List<Member> members = List.of(ready("a", "h1", 10), ready("a", "h1", 5));

        Decision d = PoolPlan.decide(new Limits(2, 1, 0), onlyB, members, Rules.NONE, NOW);

        assertEquals(List.of("b"), d.create());
        assertEquals(RetireReason.TemplateChanged, d.retire().get(0).reason());
    }

    @Test
    void shouldNotTakeAReadyMemberBelowTheMinimumWhileANewOneIsNotInTheCacheYet() {
        Member oldest = ready("a", "h1", 30);
        List<Member> members = List.of(oldest, ready("a", "h1", 20), ready("a", "h1", 10), ghost("a", "h1"));

        Decision d = PoolPlan.decide(new Limits(2, 1, 0), ONE, members, Rules.NONE, NOW);

        assertEquals(List.of(oldest), d.delete(), "2 Ready stay: the one not in the cache yet cannot be removed");
    }

    @Test
    void shouldDeleteTheOldestRollingMemberFirstWhenOnlyOneMayGo() {
        Member young = ready("a", "old", 10);
        Member old = ready("a", "old", 30);

        Decision d = PoolPlan.decide(new Limits(2, 0, 1), ONE, List.of(young, old), Rules.NONE, NOW);

        assertEquals(List.of(old), d.delete());
    }

    @Test
    void shouldDeleteARetiredMemberBeforeAnOlderRollingOne() {
        Member retired = retired(ready("a", "old", 10), RetireReason.Banned);
        Member rolling = ready("a", "old", 30);

        Decision d = PoolPlan.decide(new Limits(2, 0, 1), ONE, List.of(rolling, retired), Rules.NONE, NOW);

        assertEquals(List.of(retired), d.delete(), "a retired member is lent to nobody; a rolling one still is");
    }

    @Test
    void shouldRetireARollingMemberOnlyForACreateThatReplacesIt() {
        Member retired = retired(ready("a", "old", 40), RetireReason.Banned);
        Member older = ready("a", "old", 30);
        Member old = ready("a", "old", 20);
        List<Member> members = List.of(retired, older, old, starting("a", "h1", 1));

        Decision d = PoolPlan.decide(new Limits(5, 2, 0), ONE, members, Rules.NONE, NOW);

        assertEquals(List.of("a", "a", "a"), d.create());
        assertEquals(List.of(new PoolPlan.Retirement(older, RetireReason.TemplateChanged)), d.retire(),
                "of three creates one adds to the pool, one replaces the retired member, one the oldest rolling one");
        assertEquals(List.of(), d.delete());
    }

    @Test
    void shouldRetireTheRollingMemberThatStaysNotOneBeingDeleted() {
        Member starting = starting("a", "old", 30);
        Member ready = ready("a", "old", 20);

        Decision d = PoolPlan.decide(new Limits(2, 1, 0), ONE, List.of(starting, ready, ready("a", "h1", 5)), Rules.NONE,
                NOW);

        assertEquals(List.of(starting), d.delete(), "not Ready: it serves nobody");
        assertEquals(List.of(new PoolPlan.Retirement(ready, RetireReason.TemplateChanged)), d.retire());
        assertEquals(List.of("a"), d.create());
    }

    @Test
    void shouldKeepMembersYoungerThanMaxAgeAndLookAgainWhenTheFirstIsDue() {
        Rules rules = new Rules(Optional.of(Duration.ofHours(24)), Optional.empty(), Optional.empty(), m -> 0);
        List<Member> members = List.of(ready("a", "h1", 60), ready("a", "h1", 120));

        Decision d = PoolPlan.decide(new Limits(2, 1, 0), ONE, members, rules, NOW);

        assertTrue(d.idle(), () -> d.toString());
        assertEquals(Optional.of(NOW.plus(Duration.ofHours(22))), d.nextCheck());
    }

    @Test
    void shouldLookAgainWhenTheNextMemberReachesMaxAgeNotAtOneAlreadyPastIt() {
        Rules rules = new Rules(Optional.of(Duration.ofHours(24)), Optional.empty(), Optional.empty(), m -> 0);
        List<Member> members = List.of(ready("a", "h1", 25 * 60), ready("a", "h1", 60));

        Decision d = PoolPlan.decide(new Limits(2, 1, 0), ONE, members, rules, NOW);

        assertEquals(Optional.of(NOW.plus(Duration.ofHours(23))), d.nextCheck());
    }

    @Test
    void shouldScaleDownFromThePlacementFurthestAboveItsWeightedShare() {
        Map<String, Weighted> two = new LinkedHashMap<>();
        two.put("a", new Weighted("h1", 2));
        two.put("b", new Weighted("h2", 1));
        Member oldestB = ready("b", "h2", 70);
        List<Member> members = List.of(ready("a", "h1", 40), ready("a", "h1", 30), ready("a", "h1", 20),
                ready("a", "h1", 10), oldestB, ready("b", "h2", 60), ready("b", "h2", 50));

        Decision d = PoolPlan.decide(new Limits(6, 1, 1), two, members, Rules.NONE, NOW);

        assertEquals(List.of(oldestB), d.delete(), "a holds 4 for weight 2, b 3 for weight 1");
    }

    @Test
    void shouldScaleDownFromThePlacementListedFirstOnATie() {
        Map<String, Weighted> two = new LinkedHashMap<>();
        two.put("a", new Weighted("h1", 1));
        two.put("b", new Weighted("h2", 1));
        Member oldestA = ready("a", "h1", 40);
        List<Member> members = List.of(oldestA, ready("a", "h1", 30), ready("b", "h2", 20), ready("b", "h2", 10));

        Decision d = PoolPlan.decide(new Limits(3, 1, 1), two, members, Rules.NONE, NOW);

        assertEquals(List.of(oldestA), d.delete());
    }

    @Test
    void shouldPutANewMemberWhereItLeavesThePlacementsClosestToTheirWeights() {
        Map<String, Weighted> two = new LinkedHashMap<>();
        two.put("light", new Weighted("h1", 1));
        two.put("heavy", new Weighted("h2", 2));
        Map<String, Weighted> even = new LinkedHashMap<>();
        even.put("first", new Weighted("h1", 1));
        even.put("second", new Weighted("h2", 1));

        assertEquals(List.of("heavy"), PoolPlan.decide(new Limits(1, 1, 0), two, List.of(), Rules.NONE, NOW).create());
        assertEquals(List.of("first"), PoolPlan.decide(new Limits(1, 1, 0), even, List.of(), Rules.NONE, NOW).create(),
                "a tie goes to the placement listed first");
    }

    private Member ready(String placement, String hash, int ageMinutes) {
        return member(placement, hash, true, NOW.minus(Duration.ofMinutes(ageMinutes)), Optional.empty());
    }

    private Member starting(String placement, String hash, int ageMinutes) {
        return member(placement, hash, false, NOW.minus(Duration.ofMinutes(ageMinutes)), Optional.empty());
    }

    private Member unhealthy(String placement, String hash, int ageMinutes, Duration since) {
        return member(placement, hash, false, NOW.minus(Duration.ofMinutes(ageMinutes)), Optional.of(NOW.minus(since)));
    }

    private Member ghost(String placement, String hash) {
        return Member.ghost("ghost-" + serial++, placement, hash, NOW);
    }

    private static Member retired(Member m, RetireReason reason) {
        return new Member(m.name(), m.placement(), m.hash(), m.ready(), m.created(), m.unhealthySince(),
                Optional.of(reason), m.proxy());
    }

    private Member member(String placement, String hash, boolean ready, Instant created, Optional<Instant> sick) {
        Proxy p = new Proxy();
        String name = "m-" + serial++;
        p.setMetadata(new ObjectMetaBuilder().withName(name).build());
        return new Member(name, placement, hash, ready, created, sick, Optional.empty(), p);
    }
}
