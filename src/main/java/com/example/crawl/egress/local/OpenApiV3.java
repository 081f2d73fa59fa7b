package com.example.crawl.egress.local;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The OpenAPI v3 documents of the served kinds, as the API server publishes them under
 * {@code /openapi/v3}: a root listing one document per group version (with a content hash in its
 * URL, which kubectl caches by), and per group version the kinds' schemas (tagged with
 * {@code x-kubernetes-group-version-kind}) and their paths. Each {@code PATCH} names the query
 * parameter {@code fieldValidation}: that is how kubectl learns the server validates fields
 * itself, so it sends {@code fieldValidation=Strict} instead of validating client-side, and
 * {@link StructuralSchema} does the refusing. No {@code PATCH} lists strategic merge patch (the
 * mock cannot apply one): {@code kubectl apply} then sends a JSON merge patch for a custom
 * resource, and for a core kind the strategic merge patch it builds from its own types, which
 * {@link ApiDispatcher} hands the mock as a merge patch.
 *
 * <p>Built once from the schemas; immutable.
 */
final class OpenApiV3 {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final String root;
    private final Map<String, String> documents; // "/openapi/v3/apis/g/v" -> JSON

    OpenApiV3(List<ServedKind> kinds) {
        Map<String, List<ServedKind>> byGroupVersion = new LinkedHashMap<>();
        kinds.forEach(k -> byGroupVersion.computeIfAbsent(k.apiPath(), p -> new ArrayList<>()).add(k));
        Map<String, String> docs = new LinkedHashMap<>();
        ObjectNode paths = NODES.objectNode();
        byGroupVersion.forEach((apiPath, served) -> {
            String doc = JSON.writeValueAsString(document(served));
            docs.put("/openapi/v3" + apiPath, doc);
            paths.putObject(apiPath.substring(1)).put("serverRelativeURL", "/openapi/v3" + apiPath + "?hash=" + hash(doc));
        });
        ObjectNode rootNode = NODES.objectNode();
        rootNode.set("paths", paths);
        this.root = JSON.writeValueAsString(rootNode);
        this.documents = Map.copyOf(docs);
    }

    /** The document at {@code path} (without query), if it is one of ours. */
    Optional<String> get(String path) {
        return "/openapi/v3".equals(path) ? Optional.of(root) : Optional.ofNullable(documents.get(path));
    }

    private static ObjectNode document(List<ServedKind> kinds) {
        ObjectNode doc = NODES.objectNode().put("openapi", "3.0.0");
        doc.putObject("info").put("title", "Kubernetes").put("version", "local");
        ObjectNode paths = doc.putObject("paths");
        ObjectNode schemas = doc.putObject("components").putObject("schemas");
        for (ServedKind k : kinds) {
            String name = schemaName(k);
            ObjectNode schema = ((ObjectNode) k.schema().json().deepCopy());
            schema.set("x-kubernetes-group-version-kind", gvk(k, k.kind()));
            schemas.set(name, schema);
            ObjectNode list = schemas.putObject(name + "List").put("type", "object");
            list.putObject("properties").putObject("items").put("type", "array").putObject("items")
                    .put("$ref", "#/components/schemas/" + name);
            list.set("x-kubernetes-group-version-kind", gvk(k, k.kind() + "List"));
            String collection = k.apiPath() + (k.namespaced() ? "/namespaces/{namespace}/" : "/") + k.plural();
            ObjectNode c = paths.putObject(collection);
            c.set("get", operation(k, "list", name + "List", false));
            c.set("post", operation(k, "create", name, true));
            ObjectNode item = paths.putObject(collection + "/{name}");
            item.set("get", operation(k, "read", name, false));
            item.set("put", operation(k, "replace", name, true));
            item.set("patch", patch(k, name));
            item.set("delete", operation(k, "delete", name, false));
        }
        return doc;
    }

    private static ObjectNode operation(ServedKind k, String verb, String schema, boolean writes) {
        ObjectNode op = NODES.objectNode().put("operationId", verb + k.kind());
        op.set("x-kubernetes-group-version-kind", gvk(k, k.kind()).get(0)); // one object on operations, a list on schemas
        ArrayNode parameters = op.putArray("parameters");
        if (writes) {
            parameters.add(fieldValidation());
            op.putObject("requestBody").putObject("content").putObject("application/json").putObject("schema")
                    .put("$ref", "#/components/schemas/" + schema);
        }
        op.putObject("responses").putObject("200").put("description", "OK").putObject("content")
                .putObject("application/json").putObject("schema").put("$ref", "#/components/schemas/" + schema);
        return op;
    }

    private static ObjectNode patch(ServedKind k, String schema) {
        ObjectNode op = operation(k, "patch", schema, false);
        op.withArray("parameters").add(fieldValidation());
        ObjectNode content = op.putObject("requestBody").putObject("content");
        List<String> types = List.of("application/json-patch+json", "application/merge-patch+json",
                "application/apply-patch+yaml");
        types.forEach(t -> content.putObject(t).putObject("schema").put("type", "object"));
        return op;
    }

    private static ObjectNode fieldValidation() {
        ObjectNode p = NODES.objectNode().put("name", "fieldValidation").put("in", "query")
                .put("description", "Ignore, Warn or Strict: what the server does with unknown or duplicate fields.");
        p.putObject("schema").put("type", "string");
        return p;
    }

    private static ArrayNode gvk(ServedKind k, String kind) {
        ArrayNode a = NODES.arrayNode();
        a.addObject().put("group", k.group()).put("kind", kind).put("version", k.version());
        return a;
    }

    /** {@code io.k8s.api.core.v1.Secret} for core kinds, the reversed group for others, as the API server names them. */
    private static String schemaName(ServedKind k) {
        if (k.group().isEmpty()) {
            return "io.k8s.api.core." + k.version() + "." + k.kind();
        }
        List<String> parts = new ArrayList<>(List.of(k.group().split("\\.")));
        Collections.reverse(parts);
        return String.join(".", parts) + "." + k.version() + "." + k.kind();
    }

    private static String hash(String doc) {
        try {
            byte[] sum = MessageDigest.getInstance("SHA-512").digest(doc.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().withUpperCase().formatHex(sum);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
