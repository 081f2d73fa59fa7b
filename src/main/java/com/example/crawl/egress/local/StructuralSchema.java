package com.example.crawl.egress.local;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A CRD version's {@code openAPIV3Schema}, applied to a write the way the API server applies a
 * structural schema before it stores anything: a field the schema does not declare is unknown
 * (refused under {@code fieldValidation=Strict}, pruned otherwise), and a value of the wrong type,
 * outside its {@code enum}, or a missing {@code required} field makes the object invalid.
 * {@code x-kubernetes-preserve-unknown-fields}, {@code additionalProperties} and
 * {@code x-kubernetes-int-or-string} are honoured; {@code metadata} is left to the server's own
 * object-meta handling, as on a real one.
 *
 * <p>Not checked: CEL rules ({@code x-kubernetes-validations}), formats, lengths, bounds and
 * patterns; no defaults are applied. The operator's own spec checks still run on what is stored.
 * Immutable.
 */
final class StructuralSchema {

    /** A value that breaks the schema: the field's path, the cause's reason and message as the API server words them. */
    record Invalid(String field, String reason, String message) { }

    /** What a walk found: unknown fields' paths and invalid values, in document order. */
    record Problems(List<String> unknown, List<Invalid> invalid) {
        Problems {
            unknown = List.copyOf(unknown);
            invalid = List.copyOf(invalid);
        }
    }

    private final JsonNode schema;

    StructuralSchema(JsonNode openApiV3Schema) {
        this.schema = openApiV3Schema;
    }

    /** The schema itself, as served in OpenAPI. */
    JsonNode json() {
        return schema;
    }

    /**
     * What is wrong with {@code object}.
     *
     * @param partial true for a merge patch: nothing is required and {@code null} deletes a field
     */
    Problems check(JsonNode object, boolean partial) {
        List<String> unknown = new ArrayList<>();
        List<Invalid> invalid = new ArrayList<>();
        walk(object, schema, "", partial, false, unknown, invalid);
        return new Problems(unknown, invalid);
    }

    /** Removes from {@code object} every field the schema does not declare, as the API server prunes. */
    void prune(JsonNode object) {
        walk(object, schema, "", true, true, new ArrayList<>(), new ArrayList<>());
    }

    private static void walk(JsonNode value, JsonNode schema, String path, boolean partial, boolean prune,
            List<String> unknown, List<Invalid> invalid) {
        if (value.isNull()) {
            return; // a merge patch's deletion, or a field the server would drop
        }
        String type = schema.path("type").asString("");
        String actual = typeOf(value);
        if (!fits(type, schema, value)) {
            invalid.add(new Invalid(path, "FieldValueTypeInvalid", "Invalid value: \"" + actual + "\": "
                    + path + " in body must be of type " + type + ": \"" + actual + "\""));
            return;
        }
        if (schema.has("enum") && !contains(schema.get("enum"), value)) {
            List<String> supported = new ArrayList<>();
            schema.get("enum").forEach(e -> supported.add(e.isString() ? "\"" + e.asString() + "\"" : e.toString()));
            invalid.add(new Invalid(path, "FieldValueNotSupported", "Unsupported value: " + quoted(value)
                    + ": supported values: " + String.join(", ", supported)));
        }
        if (value.isArray() && schema.has("items")) {
            for (int i = 0; i < value.size(); i++) {
                walk(value.get(i), schema.get("items"), path + "[" + i + "]", partial, prune, unknown, invalid);
            }
        } else if (value.isObject() && !"metadata".equals(path)) {
            walkObject((ObjectNode) value, schema, path, partial, prune, unknown, invalid);
        }
    }

    private static void walkObject(ObjectNode value, JsonNode schema, String path, boolean partial, boolean prune,
            List<String> unknown, List<Invalid> invalid) {
        JsonNode properties = schema.path("properties");
        JsonNode additional = schema.path("additionalProperties");
        boolean preserve = schema.path("x-kubernetes-preserve-unknown-fields").asBoolean(false);
        if (!partial) {
            for (JsonNode required : schema.path("required")) {
                if (!value.has(required.asString())) {
                    invalid.add(new Invalid(child(path, required.asString()), "FieldValueRequired", "Required value"));
                }
            }
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = value.properties().iterator(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            String at = child(path, field.getKey());
            if (properties.has(field.getKey())) {
                walk(field.getValue(), properties.get(field.getKey()), at, partial, prune, unknown, invalid);
            } else if (additional.isObject()) {
                walk(field.getValue(), additional, at, partial, prune, unknown, invalid);
            } else if (!preserve && !additional.asBoolean(false)) {
                unknown.add(at);
                if (prune) {
                    it.remove();
                }
            }
        }
    }

    private static boolean fits(String type, JsonNode schema, JsonNode value) {
        if (schema.path("x-kubernetes-int-or-string").asBoolean(false)) {
            return value.isString() || value.isIntegralNumber();
        }
        return switch (type) {
            case "object" -> value.isObject();
            case "array" -> value.isArray();
            case "string" -> value.isString();
            case "integer" -> value.isIntegralNumber();
            case "number" -> value.isNumber();
            case "boolean" -> value.isBoolean();
            default -> true; // no type: anyOf, or preserve-unknown-fields
        };
    }

    /** The JSON type name the API server reports for a value of the wrong type. */
    private static String typeOf(JsonNode value) {
        if (value.isObject()) {
            return "object";
        } else if (value.isArray()) {
            return "array";
        } else if (value.isString()) {
            return "string";
        } else if (value.isIntegralNumber()) {
            return "integer";
        } else if (value.isNumber()) {
            return "number";
        } else if (value.isBoolean()) {
            return "boolean";
        }
        return "null";
    }

    private static boolean contains(JsonNode values, JsonNode value) {
        for (JsonNode v : values) {
            if (v.equals(value)) {
                return true;
            }
        }
        return false;
    }

    private static String quoted(JsonNode value) {
        return value.isString() ? "\"" + value.asString() + "\"" : value.toString();
    }

    private static String child(String path, String field) {
        return path.isEmpty() ? field : path + "." + field;
    }
}
