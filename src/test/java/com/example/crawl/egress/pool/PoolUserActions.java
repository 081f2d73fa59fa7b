package com.example.crawl.egress.pool;

import static com.example.crawl.egress.fakeapi.FakeApi.POOL;
import static com.example.crawl.egress.fakeapi.FakeApi.PROXY;

import com.example.crawl.egress.api.Placement;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyPool;
import com.example.crawl.egress.api.ProxyPoolSpec;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.ProxyTemplate;
import com.example.crawl.egress.api.Rotation;
import com.example.crawl.egress.cache.PoolKey;
import com.example.crawl.egress.fakeapi.FakeApi;
import io.fabric8.kubernetes.api.model.IntOrString;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.function.UnaryOperator;

/**
 * What the people using pools do in a pool crash run, drawn from the run's random: create a pool
 * (under one of a few names, so names come back with new UIDs), scale it, change what shapes its
 * members (the port; rarely an invalid one) or what does not (attributes, {@code maxLeases}),
 * change its placements and weights or its rotation (surge, unavailability, sometimes a
 * {@code maxAge} of 15 minutes), delete it (in the
 * background, with {@code orphan}, or held by a finalizer of their own for a while), report a
 * member banned, or see one turn Unhealthy. Each returns what it did, for the trace, or null when
 * it found nothing to act on.
 */
final class PoolUserActions {

    static final String NAMESPACE = "crawl";
    static final List<String> NAMES = List.of("fleet-a", "fleet-b", "fleet-c");
    static final int BAN_TARGETS = 2;
    private static final List<Integer> PORTS = List.of(3128, 3129, 8080);
    private static final List<String> PROVIDERS = List.of("local", "alpha", "beta");

    private final FakeApi api;
    private final SplittableRandom random;
    private final MemberLifecycle lifecycle;
    private final Map<String, Integer> bans = new HashMap<>();

    PoolUserActions(FakeApi api, SplittableRandom random, MemberLifecycle lifecycle) {
        this.api = api;
        this.random = random;
        this.lifecycle = lifecycle;
    }

    /** What the lease store reports: targets a member was banned on. */
    int bannedTargets(String proxyKey) {
        return bans.getOrDefault(proxyKey, 0);
    }

    String create() {
        List<String> free = NAMES.stream().filter(n -> api.get(POOL, new PoolKey(NAMESPACE, n)).isEmpty()).toList();
        if (free.isEmpty()) {
            return null;
        }
        String name = free.get(random.nextInt(free.size()));
        ProxyPoolSpec spec = new ProxyPoolSpec(random.nextInt(7), template(pick(PORTS), "eu", 1), placements(),
                rotation());
        api.create(FakeApi.pool(NAMESPACE, name, spec), new UUID(random.nextLong(), random.nextLong()).toString())
                .orElseThrow();
        return "create pool " + name + " " + describe(spec);
    }

    String scale(PoolKey key) {
        int replicas = random.nextInt(8);
        edit(key, s -> new ProxyPoolSpec(replicas, s.template(), s.placements(), s.rotation()));
        return "scale " + key + " to " + replicas;
    }

    /** The port: every member is rolled. Rarely 0, which the template refuses until repaired. */
    String shape(PoolKey key) {
        ProxySpec old = pool(key).getSpec().template().spec();
        int port = random.nextInt(30) == 0 ? 0 : other(PORTS, old.port());
        edit(key, s -> new ProxyPoolSpec(s.replicas(), template(port, old.attributes().get("region"), old.maxLeases()),
                s.placements(), s.rotation()));
        return "change port of " + key + " to " + port;
    }

    /** Attributes and maxLeases: members are updated in place. */
    String attributes(PoolKey key) {
        ProxySpec old = pool(key).getSpec().template().spec();
        String region = other(List.of("eu", "us", "asia"), old.attributes().get("region"));
        int leases = 1 + random.nextInt(4);
        edit(key, s -> new ProxyPoolSpec(s.replicas(), template(old.port(), region, leases), s.placements(),
                s.rotation()));
        return "change attributes of " + key + " to region " + region + ", maxLeases " + leases;
    }

    String placements(PoolKey key) {
        List<Placement> next = placements();
        edit(key, s -> new ProxyPoolSpec(s.replicas(), s.template(), next, s.rotation()));
        return "change placements of " + key + " to " + describe(next);
    }

    String rollout(PoolKey key) {
        Rotation next = rotation();
        edit(key, s -> new ProxyPoolSpec(s.replicas(), s.template(), s.placements(), next));
        return "change rotation of " + key + " to surge/unavailable " + next.maxSurge().getValue() + "/"
                + next.maxUnavailable().getValue() + ", maxAge " + next.maxAge();
    }

    String delete(PoolKey key) {
        int roll = random.nextInt(10);
        List<String> finalizers = roll < 6 ? List.of() : roll < 8 ? List.of("orphan") : List.of(MemberLifecycle.HOLD_FINALIZER);
        api.delete(POOL, key.namespace(), key.name(), finalizers);
        return "delete pool " + key + (finalizers.isEmpty() ? " in the background" : " with finalizer " + finalizers);
    }

    String ban(Proxy member) {
        bans.put(NAMESPACE + "/" + member.getMetadata().getName(), BAN_TARGETS + random.nextInt(2));
        return "ban " + member.getMetadata().getName();
    }

    String sicken(Proxy member) {
        boolean recovers = random.nextBoolean();
        lifecycle.sicken(member, recovers);
        return "member " + member.getMetadata().getName() + " turns Unhealthy" + (recovers ? " for a while" : "");
    }

    /** Gives a pool left with an invalid port a valid one; null when it needs none. */
    String repair(PoolKey key) {
        ProxySpec old = pool(key).getSpec().template().spec();
        if (old.port() != 0) {
            return null;
        }
        edit(key, s -> new ProxyPoolSpec(s.replicas(), template(3128, old.attributes().get("region"), old.maxLeases()),
                s.placements(), s.rotation()));
        return "repair port of " + key;
    }

    /** Turns rotation by age off, so that a run can end with every member settled; null when it was off. */
    String stopAging(PoolKey key) {
        Rotation old = pool(key).getSpec().rotation();
        if (old.maxAge() == null) {
            return null;
        }
        edit(key, s -> new ProxyPoolSpec(s.replicas(), s.template(), s.placements(), new Rotation(null,
                old.replaceUnhealthyAfter(), old.recycleAfterBans(), old.maxSurge(), old.maxUnavailable())));
        return "turn maxAge off for " + key;
    }

    /** A pool that exists and is not being deleted, if any. */
    Optional<PoolKey> anyPool() {
        List<PoolKey> live = api.list(POOL).stream().filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .map(PoolKey::of).toList();
        return live.isEmpty() ? Optional.empty() : Optional.of(live.get(random.nextInt(live.size())));
    }

    /** A live member of a live pool, if any. */
    Optional<Proxy> anyMember() {
        List<Proxy> members = api.list(PROXY).stream().filter(p -> p.getMetadata().getDeletionTimestamp() == null
                && ProxyPool.owning(p).isPresent()).toList();
        return members.isEmpty() ? Optional.empty() : Optional.of(members.get(random.nextInt(members.size())));
    }

    private void edit(PoolKey key, UnaryOperator<ProxyPoolSpec> change) {
        api.edit(POOL, key.namespace(), key.name(), p -> p.setSpec(change.apply(p.getSpec())));
    }

    private ProxyPool pool(PoolKey key) {
        return api.get(POOL, key).orElseThrow();
    }

    private List<Placement> placements() {
        int n = random.nextInt(4); // 0: the template's provider alone
        List<String> providers = new ArrayList<>(PROVIDERS);
        List<Placement> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String provider = providers.remove(random.nextInt(providers.size()));
            Map<String, String> attributes = random.nextInt(3) == 0 ? Map.of("zone", provider + "-1") : null;
            out.add(new Placement(null, provider, 1 + random.nextInt(3), attributes, null, null));
        }
        return out;
    }

    private Rotation rotation() {
        List<IntOrString> values = List.of(new IntOrString(0), new IntOrString(1), new IntOrString(2),
                new IntOrString("25%"), new IntOrString("50%"));
        IntOrString surge = values.get(random.nextInt(values.size()));
        IntOrString unavailable = values.get(random.nextInt(values.size()));
        if (Integer.valueOf(0).equals(surge.getIntVal()) && Integer.valueOf(0).equals(unavailable.getIntVal())) {
            surge = new IntOrString(1); // the CRD refuses both 0
        }
        String maxAge = random.nextInt(3) == 0 ? "15m" : null;
        return new Rotation(maxAge, "2m", new Rotation.RecycleAfterBans(BAN_TARGETS, "1h"), surge, unavailable);
    }

    static ProxyTemplate template(int port, String region, int maxLeases) {
        return new ProxyTemplate(new ProxyTemplate.Metadata(Map.of("team", "crawl"), null),
                new ProxySpec(null, "local", port, Map.of("region", region), maxLeases, null, null, null, null, null, null));
    }

    static String describe(ProxyPoolSpec spec) {
        return "replicas " + spec.replicas() + " port " + spec.template().spec().port() + " placements "
                + describe(spec.placements()) + " surge/unavailable " + spec.rotation().maxSurge().getValue() + "/"
                + spec.rotation().maxUnavailable().getValue() + " maxAge " + spec.rotation().maxAge();
    }

    private static String describe(List<Placement> placements) {
        return placements.stream().map(p -> p.id() + "x" + p.weight()).toList().toString();
    }

    private <T> T pick(List<T> from) {
        return from.get(random.nextInt(from.size()));
    }

    private <T> T other(List<T> from, T not) {
        List<T> rest = from.stream().filter(s -> !s.equals(not)).toList();
        return rest.get(random.nextInt(rest.size()));
    }
}
