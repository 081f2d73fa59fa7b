package com.example.crawl.egress.api;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The CRD files as Maven sees them (the project directory is the working directory) and objects for them. */
final class ProxyFixtures {

    static final Path PROXY_CRD = Path.of("crd/proxies.crawl.example.com.yaml");
    static final Path PROVIDER_HEALTH_CRD = Path.of("crd/providerhealths.crawl.example.com.yaml");
    static final Path POOL_CRD = Path.of("crd/proxypools.crawl.example.com.yaml");
    static final Path TARGET_POLICY_CRD = Path.of("crd/targetpolicies.crawl.example.com.yaml");
    static final Path SAMPLES = Path.of("deploy/samples");

    private ProxyFixtures() {
    }

    /** A Proxy object with this spec, given as (flow-style) YAML such as {@code {provider: gcp-eu}}. */
    static Map<String, Object> proxy(String specYaml) {
        return object("Proxy", "spec", JsonValues.parse(specYaml));
    }

    /** A ProxyPool object named {@code sample} with this spec YAML. */
    static Map<String, Object> pool(String specYaml) {
        return object("ProxyPool", "spec", JsonValues.parse(specYaml));
    }

    /** A TargetPolicy object named {@code sample} with this spec YAML. */
    static Map<String, Object> targetPolicy(String specYaml) {
        return object("TargetPolicy", "spec", JsonValues.parse(specYaml));
    }

    /** A ProviderHealth object with this status YAML. */
    static Map<String, Object> providerHealth(String statusYaml) {
        return object("ProviderHealth", "status", JsonValues.parse(statusYaml));
    }

    /** A flow-style YAML map of {@code count} distinct attributes whose keys are {@code keyLength} (3+) long. */
    static String attributes(int count, int keyLength) {
        StringBuilder yaml = new StringBuilder("{");
        for (int i = 0; i < count; i++) {
            String key = ("k" + i + "x".repeat(keyLength)).substring(0, keyLength);
            yaml.append(i == 0 ? "" : ", ").append(key).append(": v");
        }
        return yaml.append('}').toString();
    }

    /** Fails unless some problem contains {@code fragment}; the message lists them all. */
    static void assertReported(List<String> problems, String fragment) {
        assertTrue(problems.stream().anyMatch(p -> p.contains(fragment)),
                () -> "expected a problem containing \"" + fragment + "\" but got " + problems);
    }

    private static Map<String, Object> object(String kind, String part, Map<String, Object> body) {
        Map<String, Object> object = new LinkedHashMap<>();
        object.put("apiVersion", Proxy.GROUP + "/" + Proxy.VERSION);
        object.put("kind", kind);
        object.put("metadata", new LinkedHashMap<>(Map.of("name", "sample")));
        object.put(part, body);
        return object;
    }
}
