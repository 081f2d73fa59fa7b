package com.example.crawl.egress.local;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceSubresourceScale;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.zjsonpatch.JsonPatch;
import io.fabric8.zjsonpatch.JsonPatchException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A CRD version's {@code scale} subresource, served over the mock's stored objects the way the
 * API server serves it: {@code GET .../NAME/scale} answers an {@code autoscaling/v1 Scale} built
 * from the object ({@code spec.replicas} from {@code specReplicasPath}, {@code status.replicas}
 * from {@code statusReplicasPath}, 0 when absent, {@code status.selector} from
 * {@code labelSelectorPath}); {@code PUT} of a Scale, and a merge or JSON {@code PATCH} of one,
 * sets {@code specReplicasPath} on the stored object and answers the new Scale.
 *
 * <p>Resource versions as on the API server: a Scale written with a {@code resourceVersion} other
 * than the stored object's is refused 409, one written without is applied to whatever is stored.
 * A negative replica count is refused 422, as {@code autoscaling/v1} validation refuses it. Not
 * checked: the CRD's own bounds on the replicas field (local mode checks no bounds, see
 * {@link StructuralSchema}). Unlike the API server, the read and the write are two steps: a write
 * to the object between them makes the mock answer 409, which a client retries like any conflict.
 *
 * <p>An object stored without {@code specReplicasPath} (local mode applies no defaults) reads as
 * the field's schema default, which is what the API server would have stored. Immutable.
 */
final class ScaleSubresource {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final List<String> specReplicas;
    private final List<String> statusReplicas;
    private final Optional<List<String>> labelSelector;
    private final long defaultReplicas;

    private ScaleSubresource(CustomResourceSubresourceScale paths, StructuralSchema schema) {
        this.specReplicas = steps(paths.getSpecReplicasPath());
        this.statusReplicas = steps(paths.getStatusReplicasPath());
        this.labelSelector = Optional.ofNullable(paths.getLabelSelectorPath()).map(ScaleSubresource::steps);
        JsonNode field = schema.json();
        for (String step : specReplicas) {
            field = field.path("properties").path(step);
        }
        this.defaultReplicas = field.path("default").asLong(0);
    }

    /** The subresource a CRD version declares, if it declares one. */
    static Optional<ScaleSubresource> of(CustomResourceSubresourceScale declared, StructuralSchema schema) {
        return Optional.ofNullable(declared).map(d -> new ScaleSubresource(d, schema));
    }

    /**
     * Answers {@code request} to {@code objectPath + "/scale"}, reading and writing the object at
     * {@code objectPath} through {@code store}.
     */
    MockResponse handle(RecordedRequest request, String objectPath, Dispatcher store, String resource) {
        MockResponse stored = store.dispatch(request(HttpMethod.GET, objectPath, null));
        if (stored.code() != 200) {
            return stored;
        }
        ObjectNode object = (ObjectNode) read(stored);
        JsonNode current = scale(object);
        JsonNode wanted;
        try {
            wanted = switch (request.getMethod()) {
                case "GET" -> null;
                case "PUT" -> read(request.getBody());
                case "PATCH" -> patched(current, request);
                default -> throw new Refusal(ApiDispatcher.status(405, "MethodNotAllowed",
                        "the server does not allow this method on the requested resource", null));
            };
        } catch (Refusal r) {
            return r.answer;
        } catch (JacksonException e) {
            return ApiDispatcher.status(400, "BadRequest", "the body is not JSON: " + e.getOriginalMessage(), null);
        }
        if (wanted == null) {
            return ApiDispatcher.json(JSON.writeValueAsString(current));
        }
        return update(object, wanted, objectPath, store, resource);
    }

    private MockResponse update(ObjectNode object, JsonNode wanted, String objectPath, Dispatcher store,
            String resource) {
        String name = object.path("metadata").path("name").asString();
        String version = wanted.path("metadata").path("resourceVersion").asString("");
        if (!version.isEmpty() && !version.equals(object.path("metadata").path("resourceVersion").asString())) {
            return ApiDispatcher.status(409, "Conflict", "Operation cannot be fulfilled on " + resource + " \"" + name
                    + "\": the object has been modified; please apply your changes to the latest version and try again",
                    null);
        }
        JsonNode replicas = wanted.path("spec").path("replicas");
        if (!replicas.isIntegralNumber() || replicas.asLong() < 0 || replicas.asLong() > Integer.MAX_VALUE) {
            return ApiDispatcher.status(422, "Invalid", "Scale.autoscaling \"" + name + "\" is invalid: spec.replicas: "
                    + "Invalid value: " + replicas + ": must be greater than or equal to 0", null);
        }
        ObjectNode parent = object;
        for (String step : specReplicas.subList(0, specReplicas.size() - 1)) {
            parent = parent.has(step) && parent.get(step).isObject() ? (ObjectNode) parent.get(step)
                    : parent.putObject(step);
        }
        parent.put(specReplicas.getLast(), replicas.asLong());
        MockResponse written = store.dispatch(request(HttpMethod.PUT, objectPath, JSON.writeValueAsBytes(object)));
        if (written.code() != 200) {
            return written;
        }
        return ApiDispatcher.json(JSON.writeValueAsString(scale(read(written))));
    }

    /** {@code current} with the request's merge patch or JSON patch applied. */
    private static JsonNode patched(JsonNode current, RecordedRequest request) throws Refusal {
        String type = Optional.ofNullable(request.getHeader("Content-Type")).orElse("")
                .split(";")[0].trim().toLowerCase(Locale.ROOT);
        JsonNode patch = read(request.getBody());
        try {
            return switch (type) {
                case "application/merge-patch+json", "application/strategic-merge-patch+json" ->
                        mergePatch(current.deepCopy(), patch);
                case "application/json-patch+json" -> JsonPatch.apply(patch, current);
                default -> throw new Refusal(ApiDispatcher.status(415, "UnsupportedMediaType",
                        "the body of the request was in an unknown format - accepted media types include: "
                                + "application/json-patch+json, application/merge-patch+json", null));
            };
        } catch (JsonPatchException | IllegalArgumentException e) {
            throw new Refusal(ApiDispatcher.status(422, "Invalid", e.getMessage(), null));
        }
    }

    /** RFC 7386: objects merge key by key, {@code null} removes, anything else replaces. */
    private static JsonNode mergePatch(JsonNode target, JsonNode patch) {
        if (!patch.isObject()) {
            return patch;
        }
        ObjectNode out = target.isObject() ? (ObjectNode) target : JSON.createObjectNode();
        for (var e : patch.properties()) {
            if (e.getValue().isNull()) {
                out.remove(e.getKey());
            } else {
                out.set(e.getKey(), mergePatch(out.path(e.getKey()), e.getValue()));
            }
        }
        return out;
    }

    /** The {@code autoscaling/v1 Scale} of {@code object}. */
    private JsonNode scale(JsonNode object) {
        ObjectNode scale = JSON.createObjectNode().put("kind", "Scale").put("apiVersion", "autoscaling/v1");
        ObjectNode metadata = scale.putObject("metadata");
        for (String field : List.of("name", "namespace", "uid", "resourceVersion", "creationTimestamp")) {
            JsonNode value = object.path("metadata").path(field);
            if (value.isString()) {
                metadata.put(field, value.asString());
            }
        }
        JsonNode spec = at(object, specReplicas);
        scale.putObject("spec").put("replicas", spec.isIntegralNumber() ? spec.asLong() : defaultReplicas);
        ObjectNode status = scale.putObject("status").put("replicas", at(object, statusReplicas).asLong(0));
        labelSelector.map(path -> at(object, path)).filter(JsonNode::isString)
                .ifPresent(selector -> status.put("selector", selector.asString()));
        return scale;
    }

    private static JsonNode at(JsonNode node, List<String> steps) {
        for (String step : steps) {
            node = node.path(step);
        }
        return node;
    }

    /** {@code .spec.replicas} as {@code [spec, replicas]}. */
    private static List<String> steps(String jsonPath) {
        return List.of(jsonPath.substring(1).split("\\."));
    }

    private static RecordedRequest request(HttpMethod method, String path, byte[] body) {
        Headers headers = Headers.builder().set("Content-Type", "application/json").build();
        return new RecordedRequest("HTTP/1.1", method, path, headers, body == null ? new Buffer() : new Buffer(body));
    }

    private static JsonNode read(MockResponse answer) {
        return read(answer.getBody());
    }

    private static JsonNode read(Buffer body) {
        return JSON.readTree(new String(body.getBytes(), StandardCharsets.UTF_8));
    }

    /** A request refused before anything is written, with the answer to give. */
    private static final class Refusal extends Exception {
        private final transient MockResponse answer;

        Refusal(MockResponse answer) {
            super(null, null, false, false);
            this.answer = answer;
        }
    }
}
