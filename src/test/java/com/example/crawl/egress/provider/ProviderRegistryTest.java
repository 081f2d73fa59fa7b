package com.example.crawl.egress.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.example.crawl.egress.config.ConfigException;
import com.example.crawl.egress.config.ProviderConfig;
import com.example.crawl.egress.config.ProvidersConfig;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ProviderRegistryTest {
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2025-06-01T10:00:00Z"), ZoneOffset.UTC);
    private static final ProvidersConfig CONFIG = parse("""
            providers:
              - name: pods
                type: kubernetes
              - name: gcp-eu
                type: gcp
                gcp: {project: crawl-prod}
            """);

    private final Map<String, Provider> built = new HashMap<>();
    private final FakeChecker checker = new FakeChecker(TargetStatus.ready("crawl-prod", Map.of()));
    private final Map<String, ProviderFactory> factories = Map.of(
            "kubernetes", c -> remember(c, new FakeProvider(CLOCK)),
            "gcp", c -> remember(c, new CheckingProvider(new FakeProvider(CLOCK), checker)));

    @Test
    void shouldFindEachProviderByItsConfiguredName() throws Exception {
        ProviderRegistry registry = ProviderRegistry.build(CONFIG, factories, ProviderDecorator.none());

        assertSame(built.get("pods"), registry.find("pods").orElseThrow());
        assertSame(built.get("gcp-eu"), registry.find("gcp-eu").orElseThrow());
        assertEquals(Optional.empty(), registry.find("kvm-home"));
    }

    @Test
    void shouldExposeNamesAndTypesInConfigOrder() throws Exception {
        ProviderRegistry registry = ProviderRegistry.build(CONFIG, factories, ProviderDecorator.none());

        assertEquals(List.of("pods", "gcp-eu"), registry.names());
        assertEquals(List.of("pods=kubernetes", "gcp-eu=gcp"),
                registry.types().entrySet().stream().map(Object::toString).toList());
    }

    @Test
    void shouldRefuseAnEntryWhoseTypeHasNoFactoryNamingEntryAndType() {
        Map<String, ProviderFactory> onlyPods = Map.of("kubernetes", factories.get("kubernetes"));

        ConfigException e = assertThrows(ConfigException.class,
                () -> ProviderRegistry.build(CONFIG, onlyPods, ProviderDecorator.none()));

        assertEquals("providers config: providers[1] (gcp-eu).type: no provider of type \"gcp\" in this build"
                + " (available: kubernetes)", e.getMessage());
    }

    @Test
    void shouldPassAFactoryItsOwnEntry() throws Exception {
        List<ProviderConfig> seen = new ArrayList<>();
        ProviderFactory recording = c -> {
            seen.add(c);
            return new FakeProvider(CLOCK);
        };

        ProviderRegistry.build(CONFIG, Map.of("kubernetes", recording, "gcp", recording), ProviderDecorator.none());

        assertEquals(CONFIG.providers(), seen);
    }

    @Test
    void shouldLetAFactorysConfigErrorThrough() {
        ConfigException bad = new ConfigException("providers config: providers[1] (gcp-eu): key file unreadable");
        Map<String, ProviderFactory> failing = Map.of("kubernetes", factories.get("kubernetes"), "gcp", c -> {
            throw bad;
        });

        assertSame(bad, assertThrows(ConfigException.class,
                () -> ProviderRegistry.build(CONFIG, failing, ProviderDecorator.none())));
    }

    @Test
    void shouldDecorateEveryProviderWithItsName() throws Exception {
        List<String> decorated = new ArrayList<>();
        ProviderDecorator decoration = (name, p) -> {
            decorated.add(name);
            return new Wrapped(name, p);
        };

        ProviderRegistry registry = ProviderRegistry.build(CONFIG, factories, decoration);

        assertEquals(List.of("pods", "gcp-eu"), decorated);
        for (String name : List.of("pods", "gcp-eu")) {
            Wrapped w = assertInstanceOf(Wrapped.class, registry.find(name).orElseThrow());
            assertSame(built.get(name), w.inner());
        }
    }

    @Test
    void shouldApplyAChainInnermostFirst() throws Exception {
        ProviderDecorator inner = (name, p) -> new Wrapped("inner", p);
        ProviderDecorator outer = (name, p) -> new Wrapped("outer", p);

        ProviderRegistry registry = ProviderRegistry.build(CONFIG, factories, inner.andThen(outer));

        Wrapped top = (Wrapped) registry.find("pods").orElseThrow();
        assertEquals("outer", top.label());
        assertEquals("inner", ((Wrapped) top.inner()).label());
    }

    @Test
    void shouldCollectCheckersBeforeDecorating() throws Exception {
        ProviderDecorator decoration = (name, p) -> new Wrapped(name, p);

        ProviderRegistry registry = ProviderRegistry.build(CONFIG, factories, decoration);

        assertEquals(List.of("gcp-eu"), List.copyOf(registry.checkers().keySet()));
        assertSame(built.get("gcp-eu"), registry.checkers().get("gcp-eu"));
        Instant deadline = Instant.parse("2025-06-01T10:00:15Z");
        assertEquals(List.of(TargetStatus.ready("crawl-prod", Map.of())), registry.checkers().get("gcp-eu").check(deadline));
        assertEquals(List.of(deadline), checker.deadlines());
    }

    @Test
    void shouldNoteCollectorsBeforeDecorating() throws Exception {
        CollectsUnused.Collected answer = new CollectsUnused.Collected(List.of(), List.of("held"), List.of());
        class Collecting extends Wrapped implements CollectsUnused {
            Collecting(Provider inner) {
                super("collecting", inner);
            }

            @Override
            public Collected collectUnused(Instant now, java.util.function.BooleanSupplier stopping) {
                return answer;
            }
        }
        Map<String, ProviderFactory> withCollector = Map.of(
                "kubernetes", c -> remember(c, new FakeProvider(CLOCK)),
                "gcp", c -> remember(c, new Collecting(new FakeProvider(CLOCK))));

        ProviderRegistry registry = ProviderRegistry.build(CONFIG, withCollector, (name, p) -> new Wrapped(name, p));

        assertSame(built.get("gcp-eu"), registry.collector("gcp-eu").orElseThrow());
        assertEquals(answer, registry.collector("gcp-eu").orElseThrow().collectUnused(CLOCK.instant(), () -> false));
        assertEquals(Optional.empty(), registry.collector("pods"));
        assertInstanceOf(Wrapped.class, registry.find("gcp-eu").orElseThrow());
    }

    @Test
    void shouldBuildNothingFromAnEmptyConfig() throws Exception {
        ProviderRegistry registry = ProviderRegistry.build(ProvidersConfig.NONE, Map.of(), ProviderDecorator.none());

        assertEquals(List.of(), registry.names());
        assertEquals(Map.of(), registry.checkers());
    }

    private Provider remember(ProviderConfig c, Provider p) {
        built.put(c.name(), p);
        return p;
    }

    private static ProvidersConfig parse(String yaml) {
        try {
            return ProvidersConfig.parse(yaml);
        } catch (ConfigException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A decorator's result: a provider that is not a Checker, whatever it wraps. */
    private static class Wrapped extends ForwardingProvider {
        private final String label;
        private final Provider inner;

        Wrapped(String label, Provider inner) {
            super(inner);
            this.label = label;
            this.inner = inner;
        }

        String label() {
            return label;
        }

        Provider inner() {
            return inner;
        }
    }

    /** A provider that is also a Checker, as the real providers are. */
    private static final class CheckingProvider extends Wrapped implements Checker {
        private final FakeChecker checker;

        CheckingProvider(FakeProvider provider, FakeChecker checker) {
            super("checking", provider);
            this.checker = checker;
        }

        @Override
        public List<TargetStatus> check(Instant deadline) {
            return checker.check(deadline);
        }
    }
}
