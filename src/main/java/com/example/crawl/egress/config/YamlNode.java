package com.example.crawl.egress.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * A YAML mapping node that remembers where it is ({@code providers[1] (gcp-eu).gcp}), so every
 * error names the entry and field. Reading rejects unknown keys: a misspelt option must fail at
 * start rather than be silently ignored.
 */
record YamlNode(JsonNode node, String path) {

    /** Fails unless this node is a mapping whose keys are all in {@code allowed}. */
    YamlNode requireObject(Set<String> allowed) throws ConfigException {
        if (!node.isObject()) {
            throw error(path, "must be a mapping");
        }
        for (String key : node.propertyNames()) {
            if (!allowed.contains(key)) {
                throw error(at(key), "unknown field (allowed: " + String.join(", ", allowed.stream().sorted().toList()) + ")");
            }
        }
        return this;
    }

    String requiredString(String field) throws ConfigException {
        String v = optionalString(field, "");
        if (v.isBlank()) {
            throw error(at(field), "required");
        }
        return v;
    }

    String optionalString(String field, String fallback) throws ConfigException {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            return fallback;
        }
        if (!v.isString()) {
            throw error(at(field), "must be a string");
        }
        return v.stringValue();
    }

    int optionalInt(String field, int fallback, int min, int max) throws ConfigException {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            return fallback;
        }
        if (!v.isIntegralNumber() || !v.canConvertToInt() || v.intValue() < min || v.intValue() > max) {
            throw error(at(field), "must be an integer between " + min + " and " + max);
        }
        return v.intValue();
    }

    /** The mapping under {@code field}; a missing field reads as an empty mapping. */
    YamlNode child(String field) throws ConfigException {
        JsonNode v = node.get(field);
        if (v != null && !v.isNull() && !v.isObject()) {
            throw error(at(field), "must be a mapping");
        }
        return new YamlNode(v == null || v.isNull() ? JsonNodeFactory.instance.objectNode() : v, at(field));
    }

    /** The mappings of the sequence under {@code field}, each with an indexed path. */
    List<YamlNode> list(String field) throws ConfigException {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            return List.of();
        }
        if (!v.isArray()) {
            throw error(at(field), "must be a list");
        }
        List<YamlNode> out = new ArrayList<>();
        for (JsonNode item : v.values()) {
            out.add(new YamlNode(item, at(field) + "[" + out.size() + "]"));
        }
        return out;
    }

    private String at(String field) {
        return path.isEmpty() ? field : path + "." + field;
    }

    static ConfigException error(String where, String what) {
        return new ConfigException("providers config: " + where + ": " + what);
    }
}
