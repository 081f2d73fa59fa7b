package com.example.crawl.egress.health;

import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.Conditions;
import com.example.crawl.egress.api.HealthCheck;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyCredentials;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.ProxyStatus;
import com.example.crawl.egress.cache.ProxyKey;
import java.net.URI;
import java.time.Duration;
import java.util.HashSet;
import java.util.Optional;
import java.util.function.Function;

/**
 * A proxy as the engine sees it on one tick: where it is, how to probe it, and what status said
 * about its health before this engine started.
 *
 * @param key              the proxy
 * @param instance         identifies what is probed: the object's UID and the address. When it
 *                         changes (an instance replaced, an object recreated), the state starts over
 * @param target           the probe
 * @param period           time between probe starts
 * @param successThreshold consecutive successes that make the verdict healthy
 * @param failureThreshold consecutive failures that make it unhealthy
 * @param seed             the {@code Healthy} condition in status, if any, to seed the verdict
 * @param seedLatency      {@code status.latencyMillis} beside the seed
 * @param seedEgressIP     {@code status.egressIP} while {@code status.ip} is the host probed (an
 *                         address learned through another host says nothing of this one); else null
 */
record ProbeSubject(
        ProxyKey key, String instance, ProbeTarget target, Duration period, int successThreshold,
        int failureThreshold, Optional<Boolean> seed, Long seedLatency, String seedEgressIP) {

    /**
     * What to probe for {@code proxy}, or empty when it has nothing to probe yet: no address, being
     * deleted, or a spec the reconciler refuses anyway (a bad probe URL is one).
     *
     * @param credentials what the proxy demands; when a proxy's credentials cannot be found the
     *                    probe goes without, and the proxy's 407 says why it fails
     */
    static Optional<ProbeSubject> of(Proxy proxy, URI defaultUrl,
            Function<Proxy, Optional<ProxyCredentials>> credentials) {
        ProxySpec spec = proxy.getSpec();
        if (spec == null || proxy.getMetadata().getDeletionTimestamp() != null) {
            return Optional.empty();
        }
        ProxyStatus status = proxy.getStatus() == null ? ProxyStatus.EMPTY : proxy.getStatus();
        String host;
        int port;
        if (spec.mode() == ProxySpec.Mode.External) {
            if (spec.endpoint() == null || spec.endpoint().host() == null || spec.endpoint().port() == null) {
                return Optional.empty();
            }
            host = spec.endpoint().host();
            port = spec.endpoint().port();
        } else {
            host = status.ip();
            port = spec.port();
        }
        if (host == null || host.isEmpty()) {
            return Optional.empty();
        }
        HealthCheck hc = spec.healthCheck();
        ProbeTarget target;
        try {
            URI url = hc.url() == null ? defaultUrl : URI.create(hc.url());
            target = new ProbeTarget(host, port, url, new HashSet<>(hc.expectedStatus()),
                    Duration.ofSeconds(hc.timeoutSeconds()), hc.insecureSkipVerify(),
                    credentials.apply(proxy).orElse(null));
        } catch (IllegalArgumentException e) {
            return Optional.empty(); // the reconciler reports it as InvalidSpec
        }
        Optional<Boolean> seed = Conditions.find(status.conditions(), Condition.HEALTHY)
                .filter(c -> c.isTrue() || c.isFalse())
                .map(Condition::isTrue);
        return Optional.of(new ProbeSubject(ProxyKey.of(proxy), proxy.getMetadata().getUid() + "@" + host + ":" + port,
                target, Duration.ofSeconds(Math.max(1, hc.periodSeconds())),
                Math.max(1, hc.successThreshold()), Math.max(1, hc.failureThreshold()), seed, status.latencyMillis(),
                host.equals(status.ip()) ? status.egressIP() : null));
    }
}
