package com.example.crawl.egress.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a team asks for in one {@link Proxy}.
 *
 * <p>The compact constructor applies the CRD's defaults, so a spec read from an API server that
 * did not default it (an old server, a test fixture) behaves like one that did; in particular
 * {@link SpecHash} is the same either way. {@link SpecRules} re-checks the CRD's validation rules
 * for objects that reached the operator without them.
 *
 * @param mode        {@code Managed} (the operator provisions) or {@code External} (registered)
 * @param provider    name from the providers config; required for {@code Managed}
 * @param port        port the proxy listens on
 * @param attributes  discovery selectors such as {@code region=eu-west}
 * @param maxLeases   concurrent leases the proxy accepts
 * @param cloudInit   boot configuration for VM providers; {@code Managed} only
 * @param endpoint    the existing proxy; {@code External} only
 */
@JsonIgnoreProperties(ignoreUnknown = true) // a newer CRD, or an unpruned store, must not break the informer
public record ProxySpec(
        Mode mode,
        String provider,
        Integer port,
        Map<String, String> attributes,
        Integer maxLeases,
        CloudInit cloudInit,
        GcpSpec gcp,
        KvmSpec kvm,
        KubernetesSpec kubernetes,
        Endpoint endpoint,
        HealthCheck healthCheck) {

    public static final int DEFAULT_PORT = 3128;
    public static final int DEFAULT_MAX_LEASES = 1;
    public static final int MAX_ATTRIBUTES = 32;
    public static final int MAX_ATTRIBUTE_KEY_LENGTH = 63;

    public ProxySpec {
        mode = mode == null ? Mode.Managed : mode;
        port = port == null ? DEFAULT_PORT : port;
        attributes = attributes == null
                ? Map.of()
                : Collections.unmodifiableSortedMap(new TreeMap<>(attributes));
        maxLeases = maxLeases == null ? DEFAULT_MAX_LEASES : maxLeases;
        healthCheck = healthCheck == null ? HealthCheck.DEFAULTS : healthCheck;
    }

    /** Whether the operator provisions a proxy ({@code Managed}) or only registers one. */
    public enum Mode { Managed, External }
}
