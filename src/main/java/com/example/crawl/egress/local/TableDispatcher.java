package com.example.crawl.egress.local;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.CustomResourceAware;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.Resetable;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The mock server's dispatcher plus what it lacks for {@code kubectl get}: server-side tables. A
 * {@code GET} of a served custom resource (a list or one object, not a watch) whose {@code Accept}
 * asks for {@code application/json;as=Table;g=meta.k8s.io} ({@code v=v1} or {@code v1beta1}), as
 * kubectl's does, is answered by the mock as usual and the answer turned into a {@code Table}
 * from the CRD's printer columns (see {@link PrinterColumns}); rows carry the object's metadata as
 * {@code PartialObjectMetadata} unless {@code includeObject} says {@code Object} or {@code None},
 * as on a real API server. Everything else passes through untouched.
 *
 * <p>Forwards {@code reset()} and {@code expectCustomResource()} so the mock server keeps working.
 * Thread-safe.
 */
final class TableDispatcher extends Dispatcher implements Resetable, CustomResourceAware {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Pattern RESOURCE = Pattern.compile(
            "/apis/([^/]+)/([^/]+)/(?:namespaces/[^/]+/)?([^/]+)(?:/[^/]+)?");
    private static final Pattern TABLE = Pattern.compile(
            "application/json\\s*;(?=.*\\bas=Table\\b)(?=.*\\bg=meta\\.k8s\\.io\\b).*\\bv=(v1|v1beta1)\\b.*");

    private final KubernetesMixedDispatcher delegate;
    private final Clock clock;
    private final Map<String, PrinterColumns> tables = new ConcurrentHashMap<>(); // "group/version/plural"

    TableDispatcher(KubernetesMixedDispatcher delegate, Clock clock) {
        this.delegate = delegate;
        this.clock = clock;
    }

    /** Serves tables for every served version of {@code crd}. */
    void serveTables(CustomResourceDefinition crd) {
        for (PrinterColumns c : PrinterColumns.of(crd)) {
            tables.put(c.group + "/" + c.version + "/" + c.plural, c);
        }
    }

    @Override
    public MockResponse dispatch(RecordedRequest request) {
        Optional<String> tableVersion = "GET".equals(request.getMethod())
                ? tableVersion(request.getHeader("Accept")) : Optional.empty();
        String target = request.getPath();
        int q = target.indexOf('?');
        String path = q < 0 ? target : target.substring(0, q);
        Map<String, String> query = query(q < 0 ? "" : target.substring(q + 1));
        PrinterColumns columns = tableVersion.isEmpty() || "true".equals(query.get("watch")) ? null : columns(path);
        if (columns == null) {
            return delegate.dispatch(request);
        }
        PrinterColumns.Include include;
        switch (query.getOrDefault("includeObject", "")) {
            case "", "Metadata" -> include = PrinterColumns.Include.METADATA;
            case "Object" -> include = PrinterColumns.Include.OBJECT;
            case "None" -> include = PrinterColumns.Include.NONE;
            default -> {
                return badRequest("unrecognized includeObject value: \"" + query.get("includeObject") + "\"");
            }
        }
        MockResponse answer = delegate.dispatch(request);
        if (answer.code() != 200 || answer.getBody() == null) {
            return answer;
        }
        JsonNode body = JSON.readTree(new String(answer.getBody().getBytes(), StandardCharsets.UTF_8));
        String version = tableVersion.get();
        return new MockResponse().setResponseCode(200)
                .setHeader("Content-Type", "application/json;as=Table;v=" + version + ";g=meta.k8s.io")
                .setBody(JSON.writeValueAsString(columns.table(body, clock.instant(), include, version)));
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

    private PrinterColumns columns(String path) {
        Matcher m = RESOURCE.matcher(path);
        return m.matches() ? tables.get(m.group(1) + "/" + m.group(2) + "/" + m.group(3)) : null;
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

    private static MockResponse badRequest(String message) {
        String body = Serialization.asJson(new StatusBuilder().withStatus("Failure").withCode(400)
                .withReason("BadRequest").withMessage(message).build());
        return new MockResponse().setResponseCode(400).setHeader("Content-Type", "application/json").setBody(body);
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
