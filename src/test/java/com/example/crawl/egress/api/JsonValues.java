package com.example.crawl.egress.api;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import tools.jackson.databind.MappingIterator;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * Plain Java JSON values as the API server sees them after decoding: {@code LinkedHashMap},
 * {@code ArrayList}, {@code String}, {@code Boolean}, {@code Long} for integers and {@code Double}
 * for other numbers. Every value handed out is a fresh, mutable deep copy.
 */
final class JsonValues {

    /** fabric8's serialization, configured as the operator's client configures it. */
    static final KubernetesSerialization FABRIC8 = new KubernetesSerialization();

    private static final YAMLMapper YAML = YAMLMapper.builder().build();

    private JsonValues() {
    }

    /** Every non-empty document of a (multi-document) YAML or JSON file. */
    static List<Map<String, Object>> readAll(Path file) {
        List<Map<String, Object>> docs = new ArrayList<>();
        try (MappingIterator<Object> it = YAML.readerFor(Object.class).readValues(file)) {
            it.forEachRemaining(doc -> {
                if (doc != null) {
                    docs.add(asMap(normalize(doc)));
                }
            });
        }
        return docs;
    }

    /** One YAML or JSON document. */
    static Map<String, Object> parse(String yaml) {
        return asMap(normalize(YAML.readValue(yaml, Object.class)));
    }

    /** A deep, mutable copy with integers as {@code Long} and other numbers as {@code Double}. */
    static Object normalize(Object value) {
        return switch (value) {
            case null -> null;
            case Map<?, ?> m -> {
                Map<String, Object> out = new LinkedHashMap<>();
                m.forEach((k, v) -> out.put(Objects.toString(k), normalize(v)));
                yield out;
            }
            case List<?> l -> {
                List<Object> out = new ArrayList<>(l.size());
                l.forEach(v -> out.add(normalize(v)));
                yield out;
            }
            case Integer i -> i.longValue();
            case Short s -> s.longValue();
            case Float f -> f.doubleValue();
            case java.math.BigDecimal d -> d.doubleValue();
            default -> value;
        };
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> asMap(Object value) {
        if (!(value instanceof Map<?, ?>)) {
            throw new IllegalArgumentException("expected a JSON object, got " + value);
        }
        return (Map<String, Object>) value;
    }

    /** The value at a dotted path of object keys, or null when any step is absent. */
    static Object at(Map<String, Object> object, String dottedPath) {
        Object current = object;
        for (String key : dottedPath.split("\\.")) {
            if (!(current instanceof Map<?, ?> m)) {
                return null;
            }
            current = m.get(key);
        }
        return current;
    }
}
