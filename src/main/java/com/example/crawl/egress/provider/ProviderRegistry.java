package com.example.crawl.egress.provider;

import com.example.crawl.egress.config.ConfigException;
import com.example.crawl.egress.config.ProviderConfig;
import com.example.crawl.egress.config.ProvidersConfig;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The configured providers by name, built once at start-up from the providers config and the
 * factories {@code Main} hands in; immutable afterwards and safe to share between threads.
 *
 * <p>Every provider is wrapped by the {@link ProviderDecorator} chain before anyone sees it
 * through {@link #find}. {@link #checkers()} returns the undecorated providers that implement
 * {@link Checker}, collected before decoration so that health checks bypass the decorators and
 * never count as provider requests. Those that implement {@link CollectsUnused} are noted the
 * same way ({@link #collector}).
 *
 * <p>The registry does not own the providers' lifecycle: it builds them and hands them out.
 */
public final class ProviderRegistry {

    private final Map<String, Provider> providers;
    private final Map<String, Checker> checkers;
    private final Map<String, CollectsUnused> collectors;
    private final Map<String, String> types;
    private final Set<String> listsForDrift;

    private ProviderRegistry(Map<String, Provider> providers, Map<String, Checker> checkers,
            Map<String, CollectsUnused> collectors, Map<String, String> types, Set<String> listsForDrift) {
        this.providers = Collections.unmodifiableMap(providers);
        this.checkers = Collections.unmodifiableMap(checkers);
        this.collectors = Collections.unmodifiableMap(collectors);
        this.types = Collections.unmodifiableMap(types);
        this.listsForDrift = Set.copyOf(listsForDrift);
    }

    /**
     * Builds every configured provider with the factory for its type, in config order, and
     * decorates it.
     *
     * @param factories  one factory per supported type, keyed by {@link ProviderConfig#type()}
     * @param decoration applied to every provider after its checker (if any) is collected
     * @throws ConfigException when an entry's type has no factory (naming the entry, its type
     *                         and the types that have one), or when a factory rejects its entry
     */
    public static ProviderRegistry build(
            ProvidersConfig config, Map<String, ProviderFactory> factories, ProviderDecorator decoration)
            throws ConfigException {
        Map<String, Provider> providers = new LinkedHashMap<>();
        Map<String, Checker> checkers = new LinkedHashMap<>();
        Map<String, CollectsUnused> collectors = new LinkedHashMap<>();
        Map<String, String> types = new LinkedHashMap<>();
        Set<String> listsForDrift = new HashSet<>();
        List<ProviderConfig> entries = config.providers();
        for (int i = 0; i < entries.size(); i++) {
            ProviderConfig entry = entries.get(i);
            ProviderFactory factory = factories.get(entry.type());
            if (factory == null) {
                throw new ConfigException("providers config: providers[" + i + "] (" + entry.name() + ").type: "
                        + "no provider of type \"" + entry.type() + "\" in this build (available: "
                        + available(factories) + ")");
            }
            Provider raw = Objects.requireNonNull(factory.create(entry), "factory for " + entry.type() + " returned null");
            if (raw instanceof Checker checker) {
                checkers.put(entry.name(), checker);
            }
            if (raw instanceof CollectsUnused collector) {
                collectors.put(entry.name(), collector);
            }
            if (raw instanceof ListsForDrift) {
                listsForDrift.add(entry.name());
            }
            providers.put(entry.name(), Objects.requireNonNull(decoration.decorate(entry.name(), raw),
                    "decoration returned null for " + entry.name()));
            types.put(entry.name(), entry.type());
        }
        return new ProviderRegistry(providers, checkers, collectors, types, listsForDrift);
    }

    /** The decorated provider configured under {@code name}, if any. */
    public Optional<Provider> find(String name) {
        return Optional.ofNullable(providers.get(name));
    }

    /**
     * Provider name → the provider itself as a {@link Checker}, undecorated, for the providers
     * that implement it; in config order.
     */
    public Map<String, Checker> checkers() {
        return checkers;
    }

    /**
     * The provider configured under {@code name} as {@link CollectsUnused}, undecorated, if it is
     * one: the orphan sweep's second step for that provider.
     */
    public Optional<CollectsUnused> collector(String name) {
        return Optional.ofNullable(collectors.get(name));
    }

    /** Whether the provider configured under {@code name} is {@link ListsForDrift}. */
    public boolean listsForDrift(String name) {
        return listsForDrift.contains(name);
    }

    /** Every configured provider's name, in config order. */
    public List<String> names() {
        return List.copyOf(types.keySet());
    }

    /** Provider name → its type ({@code gcp}, {@code kvm}, ...), in config order. */
    public Map<String, String> types() {
        return types;
    }

    private static String available(Map<String, ProviderFactory> factories) {
        return factories.isEmpty() ? "none" : String.join(", ", new TreeSet<>(factories.keySet()));
    }
}
