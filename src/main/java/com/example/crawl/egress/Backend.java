package com.example.crawl.egress;

import com.example.crawl.egress.config.ConfigException;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.config.ProvidersConfig;
import com.example.crawl.egress.local.LocalMode;
import com.example.crawl.egress.provider.EgressPolicy;
import com.example.crawl.egress.provider.ProviderDecorator;
import com.example.crawl.egress.provider.ProviderRegistry;
import com.example.crawl.egress.provider.gcp.GcpProvider;
import com.example.crawl.egress.provider.kvm.KvmProvider;
import com.example.crawl.egress.provider.kubernetes.PodProvider;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.PrintStream;
import java.util.Map;
import java.util.Optional;
import org.slf4j.LoggerFactory;

/**
 * What the operator runs against, on either road: in a cluster, the API server fabric8's
 * autoconfiguration finds and the providers file; with {@code --local}, {@link LocalMode}'s
 * embedded API server and its {@code local} provider. Everything after it is the same on both.
 *
 * @param config    the configuration to run with (local mode fills in its generated token)
 * @param client    the Kubernetes client, registered with the shutdown by whoever made it
 * @param providers every configured provider, decorated
 * @param local     local mode, when on
 */
record Backend(OperatorConfig config, KubernetesClient client, ProviderRegistry providers, Optional<LocalMode> local) {

    /**
     * How the operator gets its backend: {@link Backend#open} in the product; a benchmark passes one
     * that puts a provider of its own behind the same composition.
     */
    @FunctionalInterface
    interface Opener {
        /** The backend for {@code config}, its providers decorated with {@code decoration}. */
        Backend open(OperatorConfig config, ProviderDecorator decoration, Shutdown shutdown)
                throws ConfigException, StartException;
    }

    /** The road {@code config} asks for; what it makes is registered with {@code shutdown}. */
    static Backend open(OperatorConfig config, ProviderDecorator decoration, Shutdown shutdown)
            throws ConfigException, StartException {
        Backend backend = config.local() ? local(config, decoration, shutdown) : cluster(config, decoration, shutdown);
        LoggerFactory.getLogger(Backend.class).atInfo().addKeyValue("providers", backend.providers().names())
                .addKeyValue("proxyNamespace", config.proxyNamespace())
                .addKeyValue("leaderElect", config.leaderElection().enabled()).addKeyValue("local", config.local())
                .log("Configuration loaded");
        return backend;
    }

    /** Local mode's banner, what to curl, once the operator runs; nothing in a cluster. */
    void welcome(PrintStream out) {
        local.ifPresent(l -> {
            out.print(l.banner(config.endpoints().discovery()));
            out.flush();
        });
    }

    private static Backend cluster(OperatorConfig config, ProviderDecorator decoration, Shutdown shutdown)
            throws ConfigException {
        ProvidersConfig providers = ProvidersConfig.load(config.providersConfig());
        // Before the registry: the kubernetes provider shares the operator's client.
        KubernetesClient client = shutdown.register(Shutdown.Stage.CLIENTS, new KubernetesClientBuilder().build());
        EgressPolicy policy = EgressPolicy.from(config.egress());
        return new Backend(config, client, ProviderRegistry.build(providers, Map.of(
                "kubernetes", c -> PodProvider.create(c, client, policy),
                "gcp", c -> shutdown.register(Shutdown.Stage.CLIENTS, GcpProvider.create(c, config.clusterName(), policy)),
                "kvm", c -> shutdown.register(Shutdown.Stage.CLIENTS, KvmProvider.create(c, config.clusterName(), policy))),
                decoration), Optional.empty());
    }

    private static Backend local(OperatorConfig config, ProviderDecorator decoration, Shutdown shutdown)
            throws ConfigException, StartException {
        if (config.providersConfig().isPresent()) {
            throw new ConfigException("--providers-config does not apply to --local, which runs its own local provider");
        }
        LocalMode local;
        try {
            local = shutdown.register(Shutdown.Stage.CLIENTS, LocalMode.prepare(config));
        } catch (LocalMode.LocalModeException e) {
            throw new StartException(e.getMessage());
        }
        return new Backend(config.withDiscoveryToken(local.token()), local.client(), ProviderRegistry.build(
                LocalMode.providersConfig(config), Map.of("local", c -> local.provider()), decoration), Optional.of(local));
    }
}
