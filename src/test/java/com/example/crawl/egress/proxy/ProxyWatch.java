package com.example.crawl.egress.proxy;

import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.Conditions;
import com.example.crawl.egress.api.Phase;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Predicate;

/** Reads Proxies of one namespace from an API server, as an IT watching the operator's work does. */
record ProxyWatch(KubernetesClient client, String namespace, Duration bound) {

    /** Waits, bounded, until the Proxy {@code name} exists and meets {@code condition}; returns it then. */
    Proxy await(String name, Predicate<Proxy> condition) {
        MockCluster.await(bound, () -> get(name).filter(condition).isPresent());
        return get(name).orElseThrow();
    }

    Optional<Proxy> get(String name) {
        return Optional.ofNullable(client.resources(Proxy.class).inNamespace(namespace).withName(name).get());
    }

    static ProxyStatus status(Proxy p) {
        return Optional.ofNullable(p.getStatus()).orElse(ProxyStatus.EMPTY);
    }

    static Phase phase(Proxy p) {
        return status(p).phase();
    }

    static Optional<Condition> healthy(Proxy p) {
        return Conditions.find(status(p).conditions(), Condition.HEALTHY);
    }
}
