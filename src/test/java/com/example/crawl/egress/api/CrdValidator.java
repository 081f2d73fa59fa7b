package com.example.crawl.egress.api;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.api.model.apiextensions.v1.ValidationRule;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;

/**
 * Validates custom resources against the single version of a CRD the way the API server does on
 * create and update, closely enough to keep our CRDs, samples and {@link SpecRules} honest in
 * unit tests. Input is plain {@link JsonValues}; output is {@code "path: problem"} strings (the
 * problems carry each CEL rule's message verbatim, the rest is not the API server's wording).
 *
 * <p>Mimics: dropping nulls and structural defaulting (defaults of absent fields, recursively, so
 * a defaulted object gets its nested defaults); {@code type} (and int-or-string), {@code enum},
 * {@code minimum}/{@code maximum}, {@code minLength}/{@code maxLength} (in code points),
 * {@code pattern} (unanchored search), {@code minItems}/{@code maxItems},
 * {@code minProperties}/{@code maxProperties}, {@code required}, unknown fields (as strict field
 * validation reports them), key uniqueness of map and set lists, and every
 * {@code x-kubernetes-validations} rule at its node (see {@link CelRules}); a transition rule
 * runs only on update and only where the old value correlates (same property, same map key, same
 * list-map key), as on the API server.
 *
 * <p>Does not: estimate CEL cost or type-check rules against the schema; validate {@code format}
 * ({@code date-time}, {@code int32}); validate {@code metadata} (the API server checks ObjectMeta
 * separately); ratchet unchanged invalid values on update; run admission. Schema keywords it does
 * not implement ({@code allOf}, {@code multipleOf}, {@code messageExpression}, ...) make
 * {@link #load} fail rather than be silently ignored. Not thread-safe.
 */
final class CrdValidator {

    private static final Set<String> UNSUPPORTED = Set.of(
            "allOf", "oneOf", "not", "multipleOf", "exclusiveMinimum", "exclusiveMaximum", "uniqueItems",
            "nullable", "x-kubernetes-preserve-unknown-fields", "x-kubernetes-embedded-resource",
            "patternProperties", "$ref");

    private final CustomResourceDefinition crd;
    private final JSONSchemaProps root;
    private final CelRules cel = new CelRules();
    private final Map<String, Pattern> patterns = new HashMap<>();

    private CrdValidator(CustomResourceDefinition crd) {
        this.crd = crd;
        this.root = version().getSchema().getOpenAPIV3Schema();
        requireSupported(JsonValues.asMap(JsonValues.normalize(
                JsonValues.FABRIC8.convertValue(root, Map.class))), "");
    }

    /** Parses a CRD file with fabric8's model classes; fails on anything this class cannot mimic. */
    static CrdValidator load(Path crdFile) {
        try (InputStream in = Files.newInputStream(crdFile)) {
            return new CrdValidator(JsonValues.FABRIC8.unmarshal(in, CustomResourceDefinition.class));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    CustomResourceDefinition crd() {
        return crd;
    }

    /** The only version; our CRDs serve exactly one. */
    CustomResourceDefinitionVersion version() {
        if (crd.getSpec().getVersions().size() != 1) {
            throw new IllegalStateException("expected exactly one version in " + crd.getMetadata().getName());
        }
        return crd.getSpec().getVersions().getFirst();
    }

    JSONSchemaProps schema() {
        return root;
    }

    /** Problems the API server reports when {@code object} is created; empty when accepted. */
    List<String> validateCreate(Map<String, Object> object) {
        return check(withDefaults(object), null);
    }

    /** Problems the API server reports when {@code old} (as stored) is updated to {@code object}. */
    List<String> validateUpdate(Map<String, Object> object, Map<String, Object> old) {
        return check(withDefaults(object), withDefaults(old));
    }

    /** A copy of {@code object} with nulls dropped and every structural default applied. */
    Map<String, Object> withDefaults(Map<String, Object> object) {
        Map<String, Object> copy = JsonValues.asMap(JsonValues.normalize(object));
        applyDefaults(copy, root);
        return copy;
    }

    /** What a field defaults to when absent, its nested defaults included; null when it has none. */
    Object effectiveDefault(JSONSchemaProps schema) {
        if (schema.getDefault() == null) {
            return null;
        }
        Object value = plain(schema.getDefault());
        applyDefaults(value, schema);
        return value;
    }

    /** Defaults that fail their own schema; the API server refuses a CRD with any. */
    List<String> invalidDefaults() {
        List<String> out = new ArrayList<>();
        collectInvalidDefaults(root, "", out);
        return out;
    }

    private List<String> check(Map<String, Object> object, Map<String, Object> old) {
        List<String> out = new ArrayList<>();
        check(object, old, root, "", out);
        return out;
    }

    private void check(Object value, Object old, JSONSchemaProps s, String path, List<String> out) {
        if (!hasType(value, s)) {
            out.add(label(path) + ": must be of type " + typeName(s) + ", got " + value);
            return;
        }
        checkScalar(value, s, path, out);
        if (value instanceof Map<?, ?> m) {
            checkObject(JsonValues.asMap(m), old instanceof Map<?, ?> o ? JsonValues.asMap(o) : null, s, path, out);
        } else if (value instanceof List<?> l) {
            checkArray(l, old instanceof List<?> o ? o : null, s, path, out);
        }
        for (ValidationRule rule : rules(s)) {
            boolean transition = CelRules.isTransition(rule);
            if (!transition || old != null) {
                cel.failure(rule, value, transition ? old : null).ifPresent(m -> out.add(label(path) + ": " + m));
            }
        }
    }

    private void checkScalar(Object value, JSONSchemaProps s, String path, List<String> out) {
        // fabric8 reads an absent enum as an empty list
        if (!enumValues(s).isEmpty() && !enumValues(s).contains(value)) {
            out.add(label(path) + ": unsupported value " + value + ", supported: " + enumValues(s));
        }
        if (value instanceof Long || value instanceof Double) {
            double number = ((Number) value).doubleValue();
            atLeast(out, path, number, s.getMinimum(), "must be >= %s");
            atMost(out, path, number, s.getMaximum(), "must be <= %s");
        }
        if (value instanceof String str) {
            long length = str.codePointCount(0, str.length());
            atLeast(out, path, length, s.getMinLength(), "must be at least %s characters long");
            atMost(out, path, length, s.getMaxLength(), "may not be longer than %s characters");
            if (s.getPattern() != null && !pattern(s.getPattern()).matcher(str).find()) {
                out.add(label(path) + ": must match " + s.getPattern());
            }
        }
    }

    private void checkObject(Map<String, Object> m, Map<String, Object> old, JSONSchemaProps s, String path,
            List<String> out) {
        for (String required : Objects.requireNonNullElse(s.getRequired(), List.<String>of())) {
            if (!m.containsKey(required)) {
                out.add(child(path, required) + ": Required value");
            }
        }
        atLeast(out, path, m.size(), s.getMinProperties(), "must have at least %s entries");
        atMost(out, path, m.size(), s.getMaxProperties(), "must have at most %s entries");
        for (Map.Entry<String, Object> e : m.entrySet()) {
            String key = e.getKey();
            if (path.isEmpty() && key.equals("metadata")) {
                continue;
            }
            JSONSchemaProps property = properties(s).get(key);
            JSONSchemaProps child = property != null ? property : additional(s);
            String childPath = property != null ? child(path, key) : path + "[" + key + "]";
            if (child == null) {
                out.add("unknown field \"" + child(path, key) + "\"");
            } else {
                check(e.getValue(), old == null ? null : old.get(key), child, childPath, out);
            }
        }
    }

    private void checkArray(List<?> list, List<?> old, JSONSchemaProps s, String path, List<String> out) {
        atLeast(out, path, list.size(), s.getMinItems(), "must have at least %s items");
        atMost(out, path, list.size(), s.getMaxItems(), "must have at most %s items");
        Set<Object> seen = new HashSet<>();
        for (int i = 0; i < list.size(); i++) {
            Object item = list.get(i);
            Object key = listKey(item, s);
            if (key != null && !seen.add(key)) {
                out.add(label(path) + "[" + i + "]: Duplicate value " + key);
            }
            JSONSchemaProps items = s.getItems() == null ? null : s.getItems().getSchema();
            if (items != null) {
                check(item, correlated(key, old, s), items, label(path) + "[" + i + "]", out);
            }
        }
    }

    /** The identity of a list item: its map keys for a map list, itself for a set, else null. */
    private static Object listKey(Object item, JSONSchemaProps s) {
        if ("map".equals(s.getXKubernetesListType()) && item instanceof Map<?, ?> m) {
            return s.getXKubernetesListMapKeys().stream().map(m::get).toList();
        }
        return "set".equals(s.getXKubernetesListType()) ? item : null;
    }

    /** The old item with the same identity; plain (atomic) lists do not correlate. */
    private static Object correlated(Object key, List<?> old, JSONSchemaProps s) {
        if (key == null || old == null) {
            return null;
        }
        return old.stream().filter(o -> key.equals(listKey(o, s))).findFirst().orElse(null);
    }

    private void applyDefaults(Object value, JSONSchemaProps s) {
        if (value instanceof Map<?, ?> raw) {
            Map<String, Object> m = JsonValues.asMap(raw);
            properties(s).forEach((key, property) -> {
                if (m.get(key) == null && property.getDefault() != null) {
                    m.put(key, plain(property.getDefault()));
                }
            });
            m.values().removeIf(Objects::isNull);
            m.forEach((key, v) -> {
                JSONSchemaProps child = properties(s).getOrDefault(key, additional(s));
                if (child != null) {
                    applyDefaults(v, child);
                }
            });
        } else if (value instanceof List<?> list && s.getItems() != null && s.getItems().getSchema() != null) {
            list.forEach(item -> applyDefaults(item, s.getItems().getSchema()));
        }
    }

    private void collectInvalidDefaults(JSONSchemaProps s, String path, List<String> out) {
        if (s.getDefault() != null) {
            List<String> errors = new ArrayList<>();
            check(effectiveDefault(s), null, s, path, errors);
            errors.forEach(e -> out.add("default of " + label(path) + ": " + e));
        }
        properties(s).forEach((key, property) -> collectInvalidDefaults(property, child(path, key), out));
        if (additional(s) != null) {
            collectInvalidDefaults(additional(s), path + "[*]", out);
        }
        if (s.getItems() != null && s.getItems().getSchema() != null) {
            collectInvalidDefaults(s.getItems().getSchema(), path + "[*]", out);
        }
    }

    private static boolean hasType(Object value, JSONSchemaProps s) {
        if (Boolean.TRUE.equals(s.getXKubernetesIntOrString())) {
            return value instanceof Long || value instanceof String;
        }
        return switch (s.getType()) {
            case "object" -> value instanceof Map;
            case "array" -> value instanceof List;
            case "string" -> value instanceof String;
            case "integer" -> value instanceof Long;
            case "number" -> value instanceof Long || value instanceof Double;
            case "boolean" -> value instanceof Boolean;
            default -> throw new IllegalArgumentException("unknown schema type " + s.getType());
        };
    }

    private static String typeName(JSONSchemaProps s) {
        return Boolean.TRUE.equals(s.getXKubernetesIntOrString()) ? "integer or string" : s.getType();
    }

    private static void atLeast(List<String> out, String path, double actual, Number min, String problem) {
        if (min != null && actual < min.doubleValue()) {
            out.add(label(path) + ": " + problem.formatted(format(min)));
        }
    }

    private static void atMost(List<String> out, String path, double actual, Number max, String problem) {
        if (max != null && actual > max.doubleValue()) {
            out.add(label(path) + ": " + problem.formatted(format(max)));
        }
    }

    private static String format(Number n) {
        return n.doubleValue() == Math.rint(n.doubleValue()) ? Long.toString(n.longValue()) : n.toString();
    }

    private Pattern pattern(String regex) {
        return patterns.computeIfAbsent(regex, Pattern::compile);
    }

    private static Map<String, JSONSchemaProps> properties(JSONSchemaProps s) {
        return s.getProperties() == null ? Map.of() : s.getProperties();
    }

    private static JSONSchemaProps additional(JSONSchemaProps s) {
        return s.getAdditionalProperties() == null ? null : s.getAdditionalProperties().getSchema();
    }

    private static List<ValidationRule> rules(JSONSchemaProps s) {
        return s.getXKubernetesValidations() == null ? List.of() : s.getXKubernetesValidations();
    }

    /** The schema's enum as plain values; empty when it has none. */
    /**
     * The message of every CEL rule in {@code schema}, depth first, leaving out the subtrees at the
     * {@code skipped} paths (written {@code .spec.template.spec}, list items and map values as
     * {@code [*]}). Every rule must have a message: the API server shows nothing better.
     */
    static List<String> ruleMessages(JSONSchemaProps schema, Set<String> skipped) {
        List<String> out = new ArrayList<>();
        ruleMessages(schema, "", skipped, out);
        if (!out.stream().allMatch(m -> m != null && !m.isBlank())) {
            throw new AssertionError("every rule needs a message: " + out);
        }
        return out;
    }

    private static void ruleMessages(JSONSchemaProps schema, String path, Set<String> skipped, List<String> out) {
        if (skipped.contains(path)) {
            return;
        }
        if (schema.getXKubernetesValidations() != null) {
            schema.getXKubernetesValidations().stream().map(ValidationRule::getMessage).forEach(out::add);
        }
        if (schema.getProperties() != null) {
            schema.getProperties().forEach((k, p) -> ruleMessages(p, path + "." + k, skipped, out));
        }
        if (schema.getItems() != null && schema.getItems().getSchema() != null) {
            ruleMessages(schema.getItems().getSchema(), path + "[*]", skipped, out);
        }
        if (schema.getAdditionalProperties() != null && schema.getAdditionalProperties().getSchema() != null) {
            ruleMessages(schema.getAdditionalProperties().getSchema(), path + "[*]", skipped, out);
        }
    }

    static List<Object> enumValues(JSONSchemaProps s) {
        return s.getEnum() == null ? List.of() : s.getEnum().stream().map(CrdValidator::plain).toList();
    }

    private static Object plain(JsonNode node) {
        return JsonValues.normalize(JsonValues.FABRIC8.convertValue(node, Object.class));
    }

    private static String child(String path, String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    private static String label(String path) {
        return path.isEmpty() ? "<root>" : path;
    }

    /** Walks the schema as plain JSON so that any keyword we do not implement is caught by name. */
    private static void requireSupported(Map<String, Object> schema, String path) {
        for (Map.Entry<String, Object> e : schema.entrySet()) {
            boolean intOrString = Boolean.TRUE.equals(schema.get("x-kubernetes-int-or-string"));
            if (UNSUPPORTED.contains(e.getKey()) || e.getKey().equals("anyOf") && !intOrString) {
                throw unsupported(e.getKey(), path);
            }
            if (e.getKey().equals("x-kubernetes-validations")) {
                for (Object rule : (List<?>) e.getValue()) {
                    JsonValues.asMap(rule).keySet().stream()
                            .filter(key -> !key.equals("rule") && !key.equals("message"))
                            .findFirst().ifPresent(key -> {
                                throw unsupported("rule field " + key, path);
                            });
                }
            }
        }
        if (schema.get("properties") instanceof Map<?, ?> properties) {
            JsonValues.asMap(properties)
                    .forEach((key, child) -> requireSupported(JsonValues.asMap(child), child(path, key)));
        }
        for (String nested : List.of("items", "additionalProperties")) {
            if (schema.get(nested) instanceof Map<?, ?> child) {
                requireSupported(JsonValues.asMap(child), path + "[*]");
            }
        }
    }

    private static IllegalArgumentException unsupported(String what, String path) {
        return new IllegalArgumentException("CrdValidator does not implement " + what + ", used at " + label(path));
    }
}
