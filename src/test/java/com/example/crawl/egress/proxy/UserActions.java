package com.example.crawl.egress.proxy;

import static com.example.crawl.egress.fakeapi.FakeApi.PROXY;

import com.example.crawl.egress.api.Endpoint;
import com.example.crawl.egress.api.KubernetesSpec;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.fakeapi.FakeApi;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.IntStream;

/**
 * What the people using the cluster do in a crash-suite run, drawn from the run's random: create
 * Proxies (mostly Managed on one of the three providers, some External), edit them (the image,
 * which replaces the instance; the provider, which moves it; an attribute, which changes nothing;
 * rarely an unknown provider or an invalid port) and delete them. They never make an object
 * look as no release of the operator leaves one (docs/decisions.md, "Only state a release wrote
 * is read"). Each returns what it did, for the trace, or null when it found nothing to act on.
 */
final class UserActions {

    static final String NAMESPACE = "crawl";
    private static final List<String> IMAGES = List.of("squid:1", "squid:2", "squid:3");
    private static final List<String> REGIONS = List.of("eu", "us", "asia");

    private final FakeApi api;
    private final SplittableRandom random;
    private final int names;

    UserActions(FakeApi api, SplittableRandom random, int names) {
        this.api = api;
        this.random = random;
        this.names = names;
    }

    static String name(int i) {
        return String.format("p%03d", i);
    }

    /** Creates a Proxy under a free name with a new UID; null when every name is taken. */
    ProxyKey create() {
        List<String> free = IntStream.range(0, names).mapToObj(UserActions::name)
                .filter(n -> api.get(PROXY, new ProxyKey(NAMESPACE, n)).isEmpty()).toList();
        if (free.isEmpty()) {
            return null;
        }
        String name = free.get(random.nextInt(free.size()));
        ProxySpec spec = random.nextInt(20) == 0 ? external(name) : managed(pick(Backend.NAMES), pick(IMAGES), pick(REGIONS));
        return ProxyKey.of(api.create(FakeApi.proxy(NAMESPACE, name, spec),
                new UUID(random.nextLong(), random.nextLong()).toString()).orElseThrow());
    }

    /** Edits the spec of a random Proxy; returns a description, or null when there is none. */
    String edit(ProxyKey key) {
        ProxySpec old = api.get(PROXY, key).orElseThrow().getSpec();
        if (old.mode() == ProxySpec.Mode.External) {
            ProxySpec next = external(key.name() + "-" + random.nextInt(3));
            api.edit(PROXY, key.namespace(), key.name(), p -> p.setSpec(next));
            return "edit endpoint";
        }
        String image = old.kubernetes() == null ? "squid:1" : old.kubernetes().image();
        String region = old.attributes().getOrDefault("region", "eu");
        int roll = random.nextInt(100);
        ProxySpec next;
        String what;
        if (roll < 35) {
            next = managed(old.provider(), other(IMAGES, image), region);
            what = "edit image";
        } else if (roll < 65) {
            next = managed(other(Backend.NAMES, old.provider()), image, region);
            what = "edit provider";
        } else if (roll < 94) {
            next = managed(old.provider(), image, other(REGIONS, region));
            what = "edit attribute";
        } else if (roll < 97) {
            next = managed("delta", image, region);
            what = "edit provider to unconfigured delta";
        } else {
            next = new ProxySpec(null, old.provider(), 0, Map.of("region", region), null, null, null, null,
                    new KubernetesSpec(image, null), null, null);
            what = "edit port to invalid 0";
        }
        api.edit(PROXY, key.namespace(), key.name(), p -> p.setSpec(next));
        return what + " -> " + next.provider() + " " + image(next) + " " + next.attributes();
    }

    /** Sets a configured provider and a valid port again on a Proxy an edit left unusable; false when it needs none. */
    boolean repair(ProxyKey key) {
        ProxySpec old = api.get(PROXY, key).orElseThrow().getSpec();
        if (old.mode() != ProxySpec.Mode.Managed || Backend.NAMES.contains(old.provider()) && old.port() != 0) {
            return false;
        }
        String provider = Backend.NAMES.contains(old.provider()) ? old.provider() : pick(Backend.NAMES);
        ProxySpec next = managed(provider, image(old), old.attributes().getOrDefault("region", "eu"));
        api.edit(PROXY, key.namespace(), key.name(), p -> p.setSpec(next));
        return true;
    }

    /**
     * Changes the spec as little as a user can to lift a latched permanent error, which only a new
     * generation does, and only a spec change makes one: an attribute, which replaces nothing.
     */
    void touch(ProxyKey key) {
        Proxy proxy = api.get(PROXY, key).orElseThrow();
        ProxySpec s = proxy.getSpec();
        Map<String, String> attributes = new TreeMap<>(s.attributes());
        attributes.put("touched", proxy.getMetadata().getGeneration().toString());
        ProxySpec next = new ProxySpec(s.mode(), s.provider(), s.port(), attributes, s.maxLeases(), s.cloudInit(),
                s.gcp(), s.kvm(), s.kubernetes(), s.endpoint(), s.healthCheck());
        api.edit(PROXY, key.namespace(), key.name(), p -> p.setSpec(next));
    }

    /** A random stored Proxy, if any. */
    Optional<ProxyKey> anyProxy() {
        List<ProxyKey> keys = api.list(PROXY).stream().map(ProxyKey::of).toList();
        return keys.isEmpty() ? Optional.empty() : Optional.of(keys.get(random.nextInt(keys.size())));
    }

    static ProxySpec managed(String provider, String image, String region) {
        return new ProxySpec(null, provider, null, Map.of("region", region), null, null, null, null,
                new KubernetesSpec(image, null), null, null);
    }

    private static ProxySpec external(String host) {
        return new ProxySpec(ProxySpec.Mode.External, null, null, Map.of("region", "eu"), null, null, null, null, null,
                new Endpoint(host + ".proxies.example", 3128, null), null);
    }

    private static String image(ProxySpec spec) {
        return spec.kubernetes() == null ? "squid:1" : spec.kubernetes().image();
    }

    private String pick(List<String> from) {
        return from.get(random.nextInt(from.size()));
    }

    private String other(List<String> from, String not) {
        List<String> rest = from.stream().filter(s -> !s.equals(not)).toList();
        return rest.get(random.nextInt(rest.size()));
    }
}
