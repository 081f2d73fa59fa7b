package com.example.crawl.egress.provider;

import com.example.crawl.egress.config.ConfigException;
import com.example.crawl.egress.config.ProviderConfig;

/**
 * Builds the provider for one providers-config entry of a given type. {@code Main} hands the
 * {@link ProviderRegistry} one factory per type it supports, so the registry never imports a
 * concrete provider and the wiring stays visible at the composition root:
 *
 * <pre>{@code
 * Map<String, ProviderFactory> factories = Map.of(
 *         "kubernetes", c -> PodProvider.create(c, client),
 *         "gcp", c -> GcpProvider.create(c, clusterName, policy));
 * }</pre>
 *
 * <p>Called once per entry, at start-up, on {@code Main}'s thread. It may read files named in the
 * entry (keys, credentials) and build clients, but should not call the backend: an unreachable
 * backend at start is a provider-health verdict, not a reason to refuse to start.
 */
@FunctionalInterface
public interface ProviderFactory {

    /**
     * The provider for {@code config}, whose {@link ProviderConfig#type()} is the type this
     * factory was registered under.
     *
     * @throws ConfigException when the entry cannot be used (an unreadable key file, say); the
     *                         message names the entry, like the providers config's own errors
     */
    Provider create(ProviderConfig config) throws ConfigException;
}
