package com.example.crawl.egress.api;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import java.lang.reflect.Constructor;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * Differences between a Java record tree and a CRD schema node: a field on one side only, a JSON
 * type that does not fit the Java type, enum values other than the Java enum's constants, and a
 * CRD default other than what the record's canonical constructor makes of a null component.
 *
 * <p>Java type to JSON type: records are objects, {@code List} an array, {@code Map<String, V>} an
 * object with {@code additionalProperties}, enums and {@code String} strings, {@code Integer} and
 * {@code Long} integers, {@code Boolean} booleans, fabric8's {@code IntOrString} an
 * int-or-string ({@code x-kubernetes-int-or-string}). A {@code String} may also meet an
 * int-or-string (a quantity), which fabric8 reads as its text. An empty collection from a
 * constructor counts as no default: it serialises like an absent field. A primitive component
 * cannot be absent, so the CRD must require it instead of defaulting it.
 */
final class RecordSchemaDrift {

    private final CrdValidator crd;
    private final List<String> drift = new ArrayList<>();

    private RecordSchemaDrift(CrdValidator crd) {
        this.crd = crd;
    }

    /** Every difference between {@code type} and {@code schema}, as {@code "path: problem"}. */
    static List<String> between(Type type, JSONSchemaProps schema, String path, CrdValidator crd) {
        RecordSchemaDrift walk = new RecordSchemaDrift(crd);
        walk.compare(type, schema, path);
        return walk.drift;
    }

    private void compare(Type type, JSONSchemaProps s, String path) {
        Class<?> raw = raw(type);
        if (raw.isRecord()) {
            expectType(s, "object", raw, path);
            compareRecord(raw, s, path);
        } else if (List.class.isAssignableFrom(raw)) {
            expectType(s, "array", raw, path);
            JSONSchemaProps items = s.getItems() == null ? null : s.getItems().getSchema();
            nested(typeArgument(type, 0), items, path + "[*]");
        } else if (Map.class.isAssignableFrom(raw)) {
            expectType(s, "object", raw, path);
            JSONSchemaProps values = s.getAdditionalProperties() == null
                    ? null
                    : s.getAdditionalProperties().getSchema();
            nested(typeArgument(type, 1), values, path + "[*]");
        } else if (raw.isEnum()) {
            expectType(s, "string", raw, path);
            List<String> constants = Arrays.stream(raw.getEnumConstants()).map(c -> ((Enum<?>) c).name()).toList();
            if (!new TreeSet<>(constants).equals(new TreeSet<>(CrdValidator.enumValues(s)))) {
                drift.add(path + ": Java enum " + constants + ", CRD enum " + CrdValidator.enumValues(s));
            }
        } else {
            compareScalar(raw, s, path);
        }
    }

    private void nested(Type type, JSONSchemaProps s, String path) {
        if (s == null) {
            drift.add(path + ": Java declares element type " + type.getTypeName() + ", the CRD none");
        } else {
            compare(type, s, path);
        }
    }

    private void compareRecord(Class<?> type, JSONSchemaProps s, String path) {
        Map<String, RecordComponent> components = new LinkedHashMap<>();
        Arrays.stream(type.getRecordComponents()).forEach(c -> components.put(c.getName(), c));
        Map<String, JSONSchemaProps> properties = s.getProperties() == null ? Map.of() : s.getProperties();
        onlyIn("Java", components.keySet(), properties.keySet(), path);
        onlyIn("the CRD", properties.keySet(), components.keySet(), path);
        Object allNulls = constructWithNulls(type);
        for (RecordComponent c : components.values()) {
            JSONSchemaProps property = properties.get(c.getName());
            if (property != null) {
                String childPath = path + "." + c.getName();
                compare(c.getGenericType(), property, childPath);
                compareDefault(c, allNulls, s, childPath);
            }
        }
    }

    private void compareDefault(RecordComponent c, Object allNulls, JSONSchemaProps parent, String path) {
        if (c.getType().isPrimitive()) {
            if (parent.getRequired() == null || !parent.getRequired().contains(c.getName())) {
                drift.add(path + ": a Java primitive is never absent, so the CRD must require it");
            }
            return;
        }
        Object javaDefault = withoutEmpties(json(accessor(c, allNulls)));
        Object crdDefault = crd.effectiveDefault(parent.getProperties().get(c.getName()));
        if (!Objects.equals(javaDefault, crdDefault)) {
            drift.add(path + ": Java defaults null to " + javaDefault + ", the CRD to " + crdDefault);
        }
    }

    private void compareScalar(Class<?> raw, JSONSchemaProps s, String path) {
        boolean intOrString = Boolean.TRUE.equals(s.getXKubernetesIntOrString());
        if (raw == IntOrString.class && !intOrString) {
            drift.add(path + ": Java IntOrString needs x-kubernetes-int-or-string, the CRD says " + s.getType());
        }
        if (intOrString && (raw == String.class || raw == IntOrString.class)) {
            return;
        }
        String json = switch (raw.getName()) {
            case "java.lang.String" -> "string";
            case "java.lang.Integer", "int", "java.lang.Long", "long" -> "integer";
            case "java.lang.Boolean", "boolean" -> "boolean";
            default -> null;
        };
        if (json == null) {
            drift.add(path + ": no JSON mapping for Java type " + raw.getName());
        } else {
            expectType(s, json, raw, path);
        }
    }

    private void expectType(JSONSchemaProps s, String json, Class<?> raw, String path) {
        if (!json.equals(s.getType())) {
            String actual = Boolean.TRUE.equals(s.getXKubernetesIntOrString()) ? "int-or-string" : s.getType();
            drift.add(path + ": Java " + raw.getSimpleName() + " needs type " + json + ", the CRD says " + actual);
        }
    }

    private void onlyIn(String side, Set<String> names, Set<String> other, String path) {
        names.stream().filter(n -> !other.contains(n)).forEach(n -> drift.add(path + "." + n + ": only in " + side));
    }

    /** The record built by its canonical constructor from nulls (zero/false for primitives). */
    private static Object constructWithNulls(Class<?> type) {
        RecordComponent[] components = type.getRecordComponents();
        Class<?>[] types = Arrays.stream(components).map(RecordComponent::getType).toArray(Class<?>[]::new);
        Object[] args = Arrays.stream(types).map(RecordSchemaDrift::absent).toArray();
        try {
            Constructor<?> canonical = type.getDeclaredConstructor(types);
            return canonical.newInstance(args);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot construct " + type.getName() + " from nulls", e);
        }
    }

    private static Object absent(Class<?> type) {
        if (!type.isPrimitive()) {
            return null;
        }
        return type == boolean.class ? false : type == long.class ? 0L : 0;
    }

    private static Object accessor(RecordComponent c, Object record) {
        try {
            return c.getAccessor().invoke(record);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A Java value as the JSON fabric8 would write for it. */
    private static Object json(Object value) {
        return JsonValues.normalize(JsonValues.FABRIC8.convertValue(value, Object.class));
    }

    /** Drops nulls and empty collections, recursively; null when nothing is left of an empty value. */
    private static Object withoutEmpties(Object value) {
        if (value instanceof Map<?, ?> m) {
            Map<String, Object> out = new LinkedHashMap<>();
            m.forEach((k, v) -> {
                Object kept = withoutEmpties(v);
                if (kept != null) {
                    out.put(k.toString(), kept);
                }
            });
            return out.isEmpty() ? null : out;
        }
        return value instanceof Collection<?> c && c.isEmpty() ? null : value;
    }

    private static Class<?> raw(Type type) {
        return type instanceof ParameterizedType p ? (Class<?>) p.getRawType() : (Class<?>) type;
    }

    private static Type typeArgument(Type type, int index) {
        return ((ParameterizedType) type).getActualTypeArguments()[index];
    }
}
