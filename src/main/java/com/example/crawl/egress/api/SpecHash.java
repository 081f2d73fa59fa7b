package com.example.crawl.egress.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import tools.jackson.databind.MapperFeature;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The hash of what shapes a {@code Managed} Proxy's instance: provider, port, the resolved
 * cloud-init content, the provider blocks and the version of its credentials. Stored in the
 * {@link Proxy#SPEC_HASH_ANNOTATION} annotation; a change means the instance is replaced.
 *
 * <p>Attributes, {@code maxLeases} and {@code healthCheck} are deliberately left out: editing
 * them must never replace a VM. The input is canonical JSON (keys sorted, nulls omitted), so map
 * ordering cannot change the hash, and a field added to a provider block in a later version does
 * not replace existing instances while it is unset. The credentials enter as a version (the UID of
 * their Secret), never as the password: a regenerated Secret replaces the instance, and the hash,
 * which sits in an annotation anyone may read, says nothing about the password.
 */
public final class SpecHash {

    private static final JsonMapper CANONICAL = JsonMapper.builder()
            .enable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
            .changeDefaultPropertyInclusion(i -> i.withValueInclusion(JsonInclude.Include.NON_NULL))
            .build();

    private SpecHash() {
    }

    /**
     * Hashes the instance-shaping part of {@code spec}.
     *
     * @param cloudInitContent   the user data after resolving {@code cloudInit} (inline or from its
     *                           Secret), or null when the Proxy has none
     * @param credentialsVersion identifies the credentials the instance is made with (the UID of
     *                           their Secret)
     * @return 32 lowercase hex characters (the first 128 bits of SHA-256)
     */
    public static String of(ProxySpec spec, String cloudInitContent, String credentialsVersion) {
        Map<String, Object> shaping = new LinkedHashMap<>();
        shaping.put("provider", spec.provider());
        shaping.put("port", spec.port());
        shaping.put("cloudInit", cloudInitContent);
        shaping.put("gcp", spec.gcp());
        shaping.put("kvm", spec.kvm());
        shaping.put("kubernetes", spec.kubernetes());
        shaping.put("credentials", credentialsVersion);
        byte[] canonical = CANONICAL.writeValueAsString(shaping).getBytes(StandardCharsets.UTF_8);
        byte[] digest = InstanceName.sha256(canonical);
        return HexFormat.of().formatHex(digest, 0, 16);
    }
}
