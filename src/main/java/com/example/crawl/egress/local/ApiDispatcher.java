package com.example.crawl.egress.local;

import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.fabric8.kubernetes.api.model.StatusDetails;
import io.fabric8.kubernetes.api.model.StatusDetailsBuilder;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.CustomResourceAware;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.Resetable;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The mock server's dispatcher, behind the embedded API's {@link ApiToken}, plus what kubectl
 * expects of an API server and the mock lacks:
 * <ul>
 * <li>authentication: every request (reads, writes, discovery, watches, WebSocket upgrades
 * included) without the token is answered 401 {@code Unauthorized}, as an API server answers it,
 * before anything else looks at it. Both ports (the mock's and {@link KubectlFront}'s) hand every
 * request to {@link #dispatch}, so this is the one place the token is checked;
 * <li>the discovery documents ({@code /api}, {@code /apis}, ...), given as fixed answers: the
 * mock answers those paths with a list of CRDs;
 * <li>server-side tables: a {@code GET} of a kind with printer columns whose {@code Accept} asks for
 * {@code application/json;as=Table;g=meta.k8s.io} ({@code v=v1} or {@code v1beta1}) is answered
 * by the mock and the answer turned into a {@code Table} (see {@link PrinterColumns}); rows carry
 * {@code PartialObjectMetadata} unless {@code includeObject} says {@code Object} or {@code None};
 * <li>OpenAPI v3 for the served kinds ({@link OpenApiV3}); {@code /openapi/v2} is 404, as on a
 * server that publishes only v3 (kubectl then uses v3);
 * <li>schema checks on writes ({@code POST}, {@code PUT}, merge {@code PATCH}) of a served kind:
 * unknown fields refused (400) under {@code fieldValidation=Strict} and pruned otherwise, with a
 * {@code Warning} header unless {@code Ignore}; wrong types, values outside an enum and missing
 * required fields refused (422), nothing stored ({@link StructuralSchema});
 * <li>the {@code scale} subresource of a kind whose CRD declares one ({@link ScaleSubresource});
 * <li>core {@code v1} Events computed from the stored {@code events.k8s.io} ones ({@link CoreEvents});
 * <li>watches that start at the {@code resourceVersion} asked for (the mock replays every object
 * as {@code ADDED}) and carry tables when asked ({@link WatchFilter}).
 * </ul>
 * Everything else passes through untouched.
 *
 * <p>Forwards {@code reset()} and {@code expectCustomResource()} so the mock server keeps working.
 * Thread-safe.
 */
final class ApiDispatcher extends Dispatcher implements Resetable, CustomResourceAware {

    private static final Logger LOG = LoggerFactory.getLogger(ApiDispatcher.class);
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Pattern RESOURCE = Pattern.compile(
            "/(?:api/(v1)|apis/([^/]+)/([^/]+))(?:/namespaces/([^/]+))?/([^/]+)(?:/([^/]+))?(?:/(status|scale))?");
    private static final Pattern TABLE = Pattern.compile(
            "application/json\\s*;(?=.*\\bas=Table\\b)(?=.*\\bg=meta\\.k8s\\.io\\b).*\\bv=(v1|v1beta1)\\b.*");

    private final KubernetesMixedDispatcher delegate;
    private final ApiToken token;
    private final Clock clock;
    private final Map<String, ServedKind> kinds = new ConcurrentHashMap<>(); // ServedKind.key()
    private volatile OpenApiV3 openApi = new OpenApiV3(List.of());
    private volatile Map<String, String> discovery = Map.of(); // path -> document

    ApiDispatcher(KubernetesMixedDispatcher delegate, ApiToken token, Clock clock) {
        this.delegate = delegate;
        this.token = token;
        this.clock = clock;
    }

    /** Serves {@code served} from now on: tables, OpenAPI, schema checks. */
    synchronized void serve(List<ServedKind> served) {
        served.forEach(k -> kinds.put(k.key(), k));
        openApi = new OpenApiV3(List.copyOf(kinds.values()));
    }

    /** Answers a {@code GET} of each path (whatever its query, e.g. kubectl's {@code ?timeout=32s}) with its document. */
    void serveDiscovery(Map<String, String> documents) {
        discovery = Map.copyOf(documents);
    }

    @Override
    public MockResponse dispatch(RecordedRequest request) {
        if (!token.admits(request.getHeaders().headers("Authorization"))) {
            return status(401, "Unauthorized", "Unauthorized", null);
        }
        String target = request.getPath();
        int q = target.indexOf('?');
        String path = q < 0 ? target : target.substring(0, q);
        Map<String, String> query = query(q < 0 ? "" : target.substring(q + 1));
        boolean get = "GET".equals(request.getMethod());
        boolean watch = "true".equals(query.get("watch"));
        if (get && discovery.containsKey(path)) {
            return json(discovery.get(path));
        }
        if (get && path.startsWith("/openapi/")) {
            return openApi.get(path).map(ApiDispatcher::json).orElseGet(() -> status(404, "NotFound", "the server "
                    + "could not find the requested resource", null));
        }
        Matcher events = CoreEvents.PATH.matcher(path);
        if (get && !watch && events.matches()) {
            return coreEvents(events, query);
        }
        Matcher m = RESOURCE.matcher(path);
        ServedKind kind = m.matches() ? kinds.get((m.group(1) != null ? "/" + m.group(1) : m.group(2) + "/" + m.group(3))
                + "/" + m.group(5)) : null;
        if (kind == null) {
            return delegate.dispatch(request);
        }
        if ("scale".equals(m.group(7))) {
            return scale(request, kind, path.substring(0, path.length() - "/scale".length()));
        }
        return switch (request.getMethod()) {
            case "POST", "PUT", "PATCH" -> write(request, kind, query, m.group(6));
            case "GET" -> watch ? watch(request, kind, query) : read(request, kind, query);
            default -> delegate.dispatch(request);
        };
    }

    private MockResponse scale(RecordedRequest request, ServedKind kind, String objectPath) {
        if (kind.scale().isEmpty()) {
            return status(404, "NotFound", "the server could not find the requested resource", null);
        }
        return kind.scale().get().handle(request, objectPath, delegate, kind.plural() + "." + kind.group());
    }

    private MockResponse read(RecordedRequest request, ServedKind kind, Map<String, String> query) {
        Optional<String> tableVersion = tableVersion(request.getHeader("Accept"));
        if (tableVersion.isEmpty() || kind.columns().isEmpty()) {
            return delegate.dispatch(request);
        }
        Optional<PrinterColumns.Include> include = include(query);
        if (include.isEmpty()) {
            return badRequest("unrecognized includeObject value: \"" + query.get("includeObject") + "\"");
        }
        MockResponse answer = delegate.dispatch(request);
        if (answer.code() != 200 || answer.getBody() == null) {
            return answer;
        }
        JsonNode body = JSON.readTree(new String(answer.getBody().getBytes(), StandardCharsets.UTF_8));
        String version = tableVersion.get();
        return new MockResponse().setResponseCode(200)
                .setHeader("Content-Type", "application/json;as=Table;v=" + version + ";g=meta.k8s.io")
                .setBody(JSON.writeValueAsString(kind.columns().get().table(body, clock.instant(), include.get(), version)));
    }

    private MockResponse watch(RecordedRequest request, ServedKind kind, Map<String, String> query) {
        MockResponse answer = delegate.dispatch(request);
        String upgrade = Optional.ofNullable(request.getHeader("Upgrade")).orElse("").toLowerCase(Locale.ROOT);
        if (answer.getWebSocketListener() == null || upgrade.contains("websocket")) {
            return answer; // a WebSocket watch: the operator's fabric8 client's, left as the mock serves it
        }
        Optional<String> tableVersion = tableVersion(request.getHeader("Accept"));
        Optional<PrinterColumns.Include> include = include(query);
        WatchFilter.Tables tables = kind.columns().isPresent() && tableVersion.isPresent() && include.isPresent()
                ? object -> kind.columns().get().table(object, clock.instant(), include.get(), tableVersion.get())
                : null;
        return new MockResponse().withWebSocketUpgrade(
                new WatchFilter(answer.getWebSocketListener(), since(query.get("resourceVersion")), tables));
    }

    /** Refuses what a real API server refuses; prunes unknown fields from the rest. */
    private MockResponse write(RecordedRequest request, ServedKind kind, Map<String, String> query, String name) {
        String contentType = Optional.ofNullable(request.getHeader("Content-Type")).orElse("application/json")
                .split(";")[0].trim().toLowerCase(Locale.ROOT);
        if (contentType.equals("application/json-patch+json")) {
            return delegate.dispatch(request); // a list of operations, not an object: not checked
        }
        JsonNode body;
        try {
            body = JSON.readTree(new String(request.getBody().getBytes(), StandardCharsets.UTF_8)); // getUtf8Body() drains it
        } catch (JacksonException e) {
            return delegate.dispatch(request); // YAML apply patches: left to the mock
        }
        if (body == null || !body.isObject()) {
            return delegate.dispatch(request);
        }
        if (contentType.equals("application/strategic-merge-patch+json")) {
            // The mock applies no strategic merge patch. kubectl sends one only for a core kind,
            // whose fields that matter here (data, labels) merge the same way as in a merge patch.
            dropDirectives(body);
            request = new RecordedRequest(request.getHttpVersion(), HttpMethod.PATCH, request.getPath(),
                    request.getHeaders().newBuilder().set("Content-Type", "application/merge-patch+json").build(),
                    new Buffer(JSON.writeValueAsBytes(body)));
        }
        StructuralSchema.Problems problems = kind.schema().check(body, "PATCH".equals(request.getMethod()));
        String directive = query.getOrDefault("fieldValidation", "Warn");
        if (directive.equals("Strict") && !problems.unknown().isEmpty()) {
            List<String> fields = problems.unknown().stream().map(f -> "unknown field \"" + f + "\"").toList();
            return badRequest(kind.kind() + " in version \"" + kind.version() + "\" cannot be handled as a "
                    + kind.kind() + ": strict decoding error: " + String.join(", ", fields));
        }
        String objectName = body.path("metadata").path("name").asString(name == null ? "" : name);
        if (!problems.invalid().isEmpty()) {
            LOG.atInfo().addKeyValue("path", request.getPath()).addKeyValue("problems", problems.invalid())
                    .log("Refused a write its CRD's schema does not allow");
            return invalid(kind, objectName, problems.invalid());
        }
        if (problems.unknown().isEmpty()) {
            return delegate.dispatch(request);
        }
        LOG.atInfo().addKeyValue("path", request.getPath()).addKeyValue("fields", problems.unknown())
                .log("Pruned fields its CRD's schema does not declare");
        kind.schema().prune(body);
        MockResponse answer = delegate.dispatch(new RecordedRequest(request.getHttpVersion(),
                HttpMethod.valueOf(request.getMethod()), request.getPath(), request.getHeaders(),
                new Buffer(JSON.writeValueAsBytes(body))));
        if (!directive.equals("Ignore")) {
            problems.unknown().forEach(f -> answer.addHeader("Warning", "299 - \"unknown field \\\"" + f + "\\\"\""));
        }
        return answer;
    }

    /** Removes a strategic merge patch's {@code $patch}, {@code $retainKeys}, {@code $setElementOrder/...} keys. */
    private static void dropDirectives(JsonNode node) {
        if (node.isObject()) {
            ((ObjectNode) node).properties().removeIf(e -> e.getKey().startsWith("$"));
        }
        node.forEach(ApiDispatcher::dropDirectives);
    }

    private MockResponse coreEvents(Matcher corePath, Map<String, String> query) {
        MockResponse stored = delegate.dispatch(new RecordedRequest("HTTP/1.1", HttpMethod.GET,
                CoreEvents.sourcePath(corePath), Headers.builder().build(), new Buffer()));
        if (stored.code() != 200 || stored.getBody() == null) {
            return stored;
        }
        JsonNode body = JSON.readTree(new String(stored.getBody().getBytes(), StandardCharsets.UTF_8));
        if (corePath.group(2) != null) {
            return json(JSON.writeValueAsString(CoreEvents.toCore(body)));
        }
        try {
            return json(JSON.writeValueAsString(CoreEvents.list(body, query.get("fieldSelector"))));
        } catch (CoreEvents.BadSelector e) {
            return badRequest(e.getMessage());
        }
    }

    /** The version of {@code meta.k8s.io} Table the first acceptable media type asks for, if any. */
    static Optional<String> tableVersion(String accept) {
        if (accept == null) {
            return Optional.empty();
        }
        for (String mediaType : accept.split(",")) {
            Matcher m = TABLE.matcher(mediaType.trim());
            if (m.matches()) {
                return Optional.of(m.group(1));
            }
        }
        return Optional.empty();
    }

    private static Optional<PrinterColumns.Include> include(Map<String, String> query) {
        return switch (query.getOrDefault("includeObject", "")) {
            case "", "Metadata" -> Optional.of(PrinterColumns.Include.METADATA);
            case "Object" -> Optional.of(PrinterColumns.Include.OBJECT);
            case "None" -> Optional.of(PrinterColumns.Include.NONE);
            default -> Optional.empty();
        };
    }

    /** The resource version a watch starts after; 0 (replay everything) when absent or not a number. */
    private static long since(String resourceVersion) {
        try {
            return resourceVersion == null ? 0 : Long.parseLong(resourceVersion);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> out = new HashMap<>();
        for (String pair : raw.split("&")) {
            if (!pair.isEmpty()) {
                int eq = pair.indexOf('=');
                String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
                out.putIfAbsent(key, eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    static MockResponse json(String body) {
        return new MockResponse().setResponseCode(200).setHeader("Content-Type", "application/json").setBody(body);
    }

    private static MockResponse badRequest(String message) {
        return status(400, "BadRequest", message, null);
    }

    /** 422 as the API server words it: {@code Proxy.crawl.example.com "x" is invalid: spec.port: ...}. */
    private static MockResponse invalid(ServedKind kind, String name, List<StructuralSchema.Invalid> problems) {
        List<String> lines = new ArrayList<>();
        List<StatusCause> causes = new ArrayList<>();
        for (StructuralSchema.Invalid p : problems) {
            lines.add(p.field() + ": " + p.message());
            causes.add(new StatusCause(p.field(), p.message(), p.reason()));
        }
        String qualified = kind.group().isEmpty() ? kind.kind() : kind.kind() + "." + kind.group();
        String message = qualified + " \"" + name + "\" is invalid: "
                + (lines.size() == 1 ? lines.get(0) : "[" + String.join(", ", lines) + "]");
        return status(422, "Invalid", message, new StatusDetailsBuilder()
                .withName(name).withGroup(kind.group()).withKind(kind.kind()).withCauses(causes).build());
    }

    static MockResponse status(int code, String reason, String message,
            StatusDetails details) {
        Status status = new StatusBuilder().withStatus("Failure").withCode(code).withReason(reason)
                .withMessage(message).withDetails(details).build();
        return new MockResponse().setResponseCode(code).setHeader("Content-Type", "application/json")
                .setBody(Serialization.asJson(status));
    }

    @Override
    public void reset() {
        delegate.reset();
    }

    @Override
    public void expectCustomResource(CustomResourceDefinitionContext context) {
        delegate.expectCustomResource(context);
    }

    @Override
    public void shutdown() {
        delegate.shutdown();
    }

    @Override
    public void releaseResources() {
        delegate.releaseResources();
    }
}
