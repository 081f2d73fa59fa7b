package com.example.crawl.egress.gc;

import com.example.crawl.egress.config.ProviderConfig;
import com.example.crawl.egress.config.ProvidersConfig;
import com.example.crawl.egress.provider.Provider;
import com.example.crawl.egress.provider.ProviderDecorator;
import com.example.crawl.egress.provider.ProviderRegistry;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Provider registries for GC tests: given providers under given names, in the order given. */
final class Registries {

    private Registries() {
    }

    /** {@code providers} (name, provider, name, provider, ...) configured in that order, decorated by {@code decoration}. */
    static ProviderRegistry of(ProviderDecorator decoration, Object... providers) {
        Map<String, Provider> byName = new LinkedHashMap<>();
        for (int i = 0; i < providers.length; i += 2) {
            byName.put((String) providers[i], (Provider) providers[i + 1]);
        }
        List<ProviderConfig> entries = byName.keySet().stream()
                .map(name -> new ProviderConfig(name, new ProviderConfig.Local(Path.of("/nonexistent"), "squid"))).toList();
        try {
            return ProviderRegistry.build(new ProvidersConfig(entries), Map.of("local", c -> byName.get(c.name())),
                    decoration);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static ProviderRegistry of(Object... providers) {
        return of(ProviderDecorator.none(), providers);
    }
}
