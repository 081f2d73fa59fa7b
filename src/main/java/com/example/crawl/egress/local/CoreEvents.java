package com.example.crawl.egress.local;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The core {@code v1} view of the {@code events.k8s.io/v1} Events the operator writes. A real API
 * server keeps one store of Events and serves it through both APIs; the mock keeps one store per
 * path, so {@code kubectl describe} (which lists core Events with a field selector on
 * {@code involvedObject}) would see none. This class converts each stored {@code events.k8s.io}
 * Event field by field as the API server does ({@code regarding} to {@code involvedObject},
 * {@code note} to {@code message}, {@code deprecated*} to {@code source}, {@code firstTimestamp},
 * {@code lastTimestamp}, {@code count}, {@code reportingController} to
 * {@code reportingComponent}) and filters by the field selector a core Event list accepts.
 *
 * <p>Read-only: core Events written directly are not part of the view. Stateless.
 */
final class CoreEvents {

    /** A core Event list path: {@code /api/v1/events} or {@code /api/v1/namespaces/ns/events(/name)}. */
    static final Pattern PATH = Pattern.compile("/api/v1/(?:namespaces/([^/]+)/)?events(?:/([^/]+))?");

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    /** The field selector's labels a core Event list supports, and where each is in a core Event. */
    private static final Map<String, String> FIELDS = fields();
    private static final Pattern REQUIREMENT = Pattern.compile("([^!=]+)(!=|==|=)(.*)");

    /** The field selector does not parse or names a field core Events cannot be selected by. */
    static final class BadSelector extends Exception {
        BadSelector(String message) {
            super(message);
        }
    }

    private record Requirement(String pointer, boolean equal, String value) { }

    private CoreEvents() {
    }

    /** The {@code events.k8s.io} path holding what {@code corePath} (matched by {@link #PATH}) asks for. */
    static String sourcePath(Matcher corePath) {
        String namespace = corePath.group(1);
        String name = corePath.group(2);
        return "/apis/events.k8s.io/v1" + (namespace == null ? "" : "/namespaces/" + namespace) + "/events"
                + (name == null ? "" : "/" + name);
    }

    /**
     * The core {@code EventList} of a stored {@code events.k8s.io} list, filtered.
     *
     * @throws BadSelector when {@code fieldSelector} is malformed or names an unsupported field
     */
    static ObjectNode list(JsonNode eventsList, String fieldSelector) throws BadSelector {
        List<Requirement> requirements = parse(fieldSelector);
        ObjectNode out = JSON.objectNode().put("kind", "EventList").put("apiVersion", "v1");
        out.set("metadata", eventsList.path("metadata").deepCopy());
        ArrayNode items = out.putArray("items");
        for (JsonNode event : eventsList.path("items")) {
            ObjectNode core = toCore(event);
            if (requirements.stream().allMatch(r -> r.equal() == r.value().equals(core.at(r.pointer()).asString("")))) {
                items.add(core);
            }
        }
        return out;
    }

    /** One {@code events.k8s.io/v1} Event as a core {@code v1} Event. */
    static ObjectNode toCore(JsonNode event) {
        ObjectNode core = JSON.objectNode().put("kind", "Event").put("apiVersion", "v1");
        copy(event, "metadata", core, "metadata");
        copy(event, "regarding", core, "involvedObject");
        copy(event, "reason", core, "reason");
        copy(event, "note", core, "message");
        copy(event, "deprecatedSource", core, "source");
        copy(event, "deprecatedFirstTimestamp", core, "firstTimestamp");
        copy(event, "deprecatedLastTimestamp", core, "lastTimestamp");
        copy(event, "deprecatedCount", core, "count");
        copy(event, "type", core, "type");
        copy(event, "eventTime", core, "eventTime");
        copy(event, "series", core, "series");
        copy(event, "action", core, "action");
        copy(event, "related", core, "related");
        copy(event, "reportingController", core, "reportingComponent");
        copy(event, "reportingInstance", core, "reportingInstance");
        if (!core.has("involvedObject")) {
            core.putObject("involvedObject");
        }
        return core;
    }

    private static void copy(JsonNode from, String field, ObjectNode to, String as) {
        JsonNode v = from.get(field);
        if (v != null && !v.isNull()) {
            to.set(as, v.deepCopy());
        }
    }

    private static List<Requirement> parse(String selector) throws BadSelector {
        if (selector == null || selector.isBlank()) {
            return List.of();
        }
        List<Requirement> out = new ArrayList<>();
        for (String term : selector.split(",")) {
            Matcher m = REQUIREMENT.matcher(term.trim());
            if (!m.matches()) {
                throw new BadSelector("invalid selector: '" + selector + "'; can't understand '" + term + "'");
            }
            String pointer = Optional.ofNullable(FIELDS.get(m.group(1).trim()))
                    .orElseThrow(() -> new BadSelector("field label not supported: " + m.group(1).trim()));
            out.add(new Requirement(pointer, !"!=".equals(m.group(2)), m.group(3).trim()));
        }
        return out;
    }

    private static Map<String, String> fields() {
        Map<String, String> f = new LinkedHashMap<>();
        for (String k : List.of("kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath")) {
            f.put("involvedObject." + k, "/involvedObject/" + k);
        }
        f.put("reason", "/reason");
        f.put("reportingComponent", "/reportingComponent");
        f.put("source", "/source/component");
        f.put("type", "/type");
        f.put("metadata.name", "/metadata/name");
        f.put("metadata.namespace", "/metadata/namespace");
        return Map.copyOf(f);
    }
}
