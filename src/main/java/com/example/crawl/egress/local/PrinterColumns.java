package com.example.crawl.egress.local;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * One served CRD version's {@code additionalPrinterColumns}, turned into a {@code meta.k8s.io}
 * {@code Table} the way the real API server's custom-resource table convertor does it: a first
 * column {@code Name}, then one per printer column; a cell is the JSONPath's first match, typed by
 * the column ({@code string} as text, {@code integer}, {@code number}, {@code boolean}), or null
 * when the path finds nothing or the value has another type; a {@code date} cell is the age of
 * the RFC 3339 time it finds, in kubectl's short form ({@code 45s}, {@code 12m}, {@code 3h},
 * {@code 9d}, {@code 2y}), {@code <invalid>} when it cannot be parsed.
 *
 * <p>JSONPaths are the simple ones CRDs use: {@code .a.b}, {@code [0]} and
 * {@code [?(@.type=="Healthy")]}; anything else is refused when the CRD is read. Immutable.
 */
final class PrinterColumns {

    /** What a row carries besides its cells, from the request's {@code includeObject}. */
    enum Include { METADATA, OBJECT, NONE }

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    private static final String NAME_DESCRIPTION = "Name of the object, unique within its namespace, or the cluster "
            + "for a cluster-scoped kind.";
    private static final Pattern STEP = Pattern.compile(
            "\\.([A-Za-z0-9_-]+)|\\[(\\d+)]|\\[\\?\\(@\\.([A-Za-z0-9_-]+)\\s*==\\s*(?:\"([^\"]*)\"|'([^']*)')\\)]");

    private record Step(String field, int index, String key, String value) { }

    private record Column(CustomResourceColumnDefinition definition, List<Step> path) { }

    final String group;
    final String version;
    final String plural;
    private final List<Column> columns;

    private PrinterColumns(String group, String version, String plural, List<Column> columns) {
        this.group = group;
        this.version = version;
        this.plural = plural;
        this.columns = columns;
    }

    /**
     * The columns of each served version of {@code crd}.
     *
     * @throws IllegalArgumentException when a column's JSONPath is not one of the simple forms
     */
    static List<PrinterColumns> of(CustomResourceDefinition crd) {
        List<PrinterColumns> out = new ArrayList<>();
        for (CustomResourceDefinitionVersion v : crd.getSpec().getVersions()) {
            if (Boolean.TRUE.equals(v.getServed())) {
                List<Column> columns = new ArrayList<>();
                for (CustomResourceColumnDefinition c : v.getAdditionalPrinterColumns() == null
                        ? List.<CustomResourceColumnDefinition>of() : v.getAdditionalPrinterColumns()) {
                    columns.add(new Column(c, parse(c.getJsonPath())));
                }
                out.add(new PrinterColumns(crd.getSpec().getGroup(), v.getName(), crd.getSpec().getNames().getPlural(),
                        List.copyOf(columns)));
            }
        }
        return out;
    }

    /**
     * The {@code Table} of {@code body}, a list (its {@code items}) or one object, as of {@code now}.
     *
     * @param tableVersion {@code v1} or {@code v1beta1}: the version of {@code meta.k8s.io} asked for
     */
    ObjectNode table(JsonNode body, Instant now, Include include, String tableVersion) {
        String apiVersion = "meta.k8s.io/" + tableVersion;
        ObjectNode table = JSON.objectNode().put("kind", "Table").put("apiVersion", apiVersion);
        ObjectNode metadata = table.putObject("metadata");
        JsonNode listMeta = body.path("metadata");
        if (listMeta.hasNonNull("resourceVersion")) {
            metadata.put("resourceVersion", listMeta.get("resourceVersion").asString());
        }
        if (listMeta.hasNonNull("continue")) {
            metadata.put("continue", listMeta.get("continue").asString());
        }
        ArrayNode definitions = table.putArray("columnDefinitions");
        definitions.add(definition("Name", "string", "name", NAME_DESCRIPTION, 0));
        for (Column c : columns) {
            CustomResourceColumnDefinition d = c.definition();
            definitions.add(definition(d.getName(), d.getType(), d.getFormat() == null ? "" : d.getFormat(),
                    d.getDescription() == null || d.getDescription().isEmpty()
                            ? "Custom resource definition column (in JSONPath format): " + d.getJsonPath()
                            : d.getDescription(),
                    d.getPriority() == null ? 0 : d.getPriority()));
        }
        ArrayNode rows = table.putArray("rows");
        List<JsonNode> items = new ArrayList<>();
        if (body.has("items")) {
            body.get("items").forEach(items::add);
        } else {
            items.add(body);
        }
        for (JsonNode item : items) {
            rows.add(row(item, now, include, apiVersion));
        }
        return table;
    }

    private ObjectNode row(JsonNode item, Instant now, Include include, String apiVersion) {
        ObjectNode row = JSON.objectNode();
        ArrayNode cells = row.putArray("cells");
        cells.add(item.path("metadata").path("name").asString(""));
        for (Column c : columns) {
            cells.add(cell(c.definition().getType(), find(item, c.path()), now));
        }
        switch (include) {
            case METADATA -> row.putObject("object").put("kind", "PartialObjectMetadata").put("apiVersion", apiVersion)
                    .set("metadata", item.path("metadata").deepCopy());
            case OBJECT -> row.set("object", item.deepCopy());
            case NONE -> { }
        }
        return row;
    }

    private static ObjectNode definition(String name, String type, String format, String description, int priority) {
        return JSON.objectNode().put("name", name).put("type", type).put("format", format)
                .put("description", description).put("priority", priority);
    }

    /** The cell of a value the path found ({@code null} when none), as the column's type wants it. */
    static JsonNode cell(String type, JsonNode value, Instant now) {
        if (value == null || value.isNull() || value.isMissingNode()) {
            return JSON.nullNode();
        }
        return switch (type) {
            case "string" -> JSON.stringNode(value.isString() ? value.asString() : value.toString());
            case "integer" -> value.isNumber() ? JSON.numberNode(value.asLong()) : JSON.nullNode();
            case "number" -> value.isNumber() ? JSON.numberNode(value.asDouble()) : JSON.nullNode();
            case "boolean" -> value.isBoolean() ? value : JSON.nullNode();
            case "date" -> value.isString() ? JSON.stringNode(age(value.asString(), now)) : JSON.nullNode();
            default -> JSON.nullNode();
        };
    }

    /** How long ago {@code rfc3339} was, in kubectl's short form. */
    static String age(String rfc3339, Instant now) {
        if (rfc3339.isEmpty()) {
            return "<unknown>"; // the API server reads an empty time as the zero time
        }
        try {
            return shortHumanDuration(Duration.between(OffsetDateTime.parse(rfc3339).toInstant(), now));
        } catch (DateTimeParseException e) {
            return "<invalid>";
        }
    }

    /** Kubernetes' {@code duration.ShortHumanDuration}: whole units, truncated, ~1 significant figure. */
    static String shortHumanDuration(Duration d) {
        long seconds = d.toMillis() / 1000; // toward zero, as Go's int(d.Seconds())
        if (seconds < -1) {
            return "<invalid>"; // more than a second in the future: not clock skew
        } else if (seconds < 0) {
            return "0s";
        } else if (seconds < 60) {
            return seconds + "s";
        } else if (d.toMinutes() < 60) {
            return d.toMinutes() + "m";
        } else if (d.toHours() < 24) {
            return d.toHours() + "h";
        } else if (d.toHours() < 24 * 365) {
            return d.toHours() / 24 + "d";
        }
        return d.toHours() / 24 / 365 + "y";
    }

    private static List<Step> parse(String jsonPath) {
        List<Step> steps = new ArrayList<>();
        Matcher m = STEP.matcher(jsonPath);
        int at = 0;
        while (at < jsonPath.length() && m.find(at) && m.start() == at) {
            String value = m.group(4) != null ? m.group(4) : m.group(5);
            steps.add(new Step(m.group(1), m.group(2) == null ? -1 : Integer.parseInt(m.group(2)), m.group(3), value));
            at = m.end();
        }
        if (at != jsonPath.length() || steps.isEmpty()) {
            throw new IllegalArgumentException("printer column JSONPath " + jsonPath + " is not a simple path");
        }
        return List.copyOf(steps);
    }

    /** The path's first match in {@code item}, or null. */
    private static JsonNode find(JsonNode item, List<Step> path) {
        JsonNode at = item;
        for (Step s : path) {
            if (s.field() != null) {
                at = at.isObject() ? at.get(s.field()) : null;
            } else if (s.index() >= 0) {
                at = at.isArray() ? at.get(s.index()) : null;
            } else {
                at = first(at, s);
            }
            if (at == null) {
                return null;
            }
        }
        return at;
    }

    private static JsonNode first(JsonNode array, Step filter) {
        if (!array.isArray()) {
            return null;
        }
        for (JsonNode element : array) {
            JsonNode v = element.get(filter.key());
            if (v != null && v.isValueNode() && filter.value().equals(v.isString() ? v.asString() : v.toString())) {
                return element;
            }
        }
        return null;
    }
}
