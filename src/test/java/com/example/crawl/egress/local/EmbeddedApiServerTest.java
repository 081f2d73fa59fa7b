package com.example.crawl.egress.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The embedded API as kubectl sees it, over HTTPS on the address the kubeconfig names: writes
 * checked against the CRD's schema, discovery whatever the query, and a watch streamed as lines.
 */
class EmbeddedApiServerTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String PROXIES = "/apis/crawl.example.com/v1alpha1/namespaces/default/proxies";
    private static final String POLICIES = "/apis/crawl.example.com/v1alpha1/namespaces/default/targetpolicies";
    private static final ApiToken TOKEN = ApiToken.generate();
    private static EmbeddedApiServer api;
    private static HttpClient http;

    @BeforeAll
    static void start() {
        api = EmbeddedApiServer.start(TOKEN);
        http = TrustingClient.of(api.certificatePem());
    }

    @AfterAll
    static void stop() {
        api.close();
    }

    @Test
    void shouldPruneUnknownFieldsWithAWarningWhenNotStrict() throws Exception {
        HttpResponse<String> created = send("POST", PROXIES, proxy("pruned", "\"colour\":\"blue\""), "application/json");

        assertEquals(201, created.statusCode(), created.body());
        assertEquals(List.of("299 - \"unknown field \\\"spec.colour\\\"\""), created.headers().allValues("Warning"));
        JsonNode stored = JSON.readTree(send("GET", PROXIES + "/pruned", null, null).body());
        assertTrue(stored.at("/spec/colour").isMissingNode() && stored.at("/spec/mode").asString().equals("External"),
                stored.toString());
    }

    @Test
    void shouldRefuseAWrongTypeInAMergePatchAndKeepTheObject() throws Exception {
        send("POST", PROXIES, proxy("patched", ""), "application/json");

        HttpResponse<String> patched = send("PATCH", PROXIES + "/patched?fieldValidation=Strict",
                "{\"spec\":{\"maxLeases\":\"many\"}}", "application/merge-patch+json");

        assertEquals(422, patched.statusCode(), patched.body());
        JsonNode status = JSON.readTree(patched.body());
        assertEquals("Invalid", status.get("reason").asString());
        assertEquals("spec.maxLeases", status.at("/details/causes/0/field").asString());
        assertEquals(2, JSON.readTree(send("GET", PROXIES + "/patched", null, null).body()).at("/spec/maxLeases").asInt());
    }

    @Test
    void shouldAnswerDiscoveryWhateverTheTimeout() throws Exception {
        HttpResponse<String> groups = send("GET", "/apis?timeout=5s", null, null);

        assertEquals("APIGroupList", JSON.readTree(groups.body()).get("kind").asString(), groups.body());
    }

    @Test
    @Timeout(30)
    void shouldStreamAWatchFromTheResourceVersionAsked() throws Exception {
        send("POST", PROXIES, proxy("before", ""), "application/json");
        String version = JSON.readTree(send("GET", PROXIES, null, null).body()).at("/metadata/resourceVersion").asString();
        HttpResponse<InputStream> watch = http.send(HttpRequest.newBuilder(
                URI.create(api.url() + PROXIES + "?watch=true&resourceVersion=" + version))
                .header("Authorization", "Bearer " + TOKEN.value()).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(watch.body(), StandardCharsets.UTF_8))) {
            send("POST", PROXIES, proxy("after", ""), "application/json");

            JsonNode event = JSON.readTree(lines.readLine());

            assertEquals("ADDED", event.get("type").asString());
            assertEquals("after", event.at("/object/metadata/name").asString(), "not the replayed 'before'");
        }
    }

    /** What {@code kubectl get tp} needs: the kind in discovery under its short name, the resource, its table. */
    @Test
    void shouldServeTargetPoliciesToKubectlByTheirShortNameWithTheirColumns() throws Exception {
        JsonNode resources = JSON.readTree(send("GET", "/apis/crawl.example.com/v1alpha1", null, null).body());
        JsonNode policies = null;
        for (JsonNode r : resources.get("resources")) {
            policies = r.get("name").asString().equals("targetpolicies") ? r : policies;
        }
        assertEquals("tp", policies == null ? null : policies.at("/shortNames/0").asString(), resources.toString());

        HttpResponse<String> created = send("POST", POLICIES, """
                {"apiVersion":"crawl.example.com/v1alpha1","kind":"TargetPolicy","metadata":{"name":"shop","namespace":"default"},
                 "spec":{"hosts":["shop.example.com","*.shop.example.com"],"maxLeases":20,"minInterval":"2s"}}""",
                "application/json");
        assertEquals(201, created.statusCode(), created.body());

        HttpRequest table = HttpRequest.newBuilder(URI.create(api.url() + POLICIES)).timeout(Duration.ofSeconds(10))
                .header("Authorization", "Bearer " + TOKEN.value())
                .header("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io").build();
        JsonNode cells = JSON.readTree(http.send(table, HttpResponse.BodyHandlers.ofString()).body()).at("/rows/0/cells");
        assertEquals("shop", cells.get(0).asString(), cells.toString());
        assertEquals("[\"shop.example.com\",\"*.shop.example.com\"]", cells.get(1).asString(), "Hosts");
        assertEquals(20, cells.get(2).asInt(), "Max");
        assertTrue(cells.get(3).isNull(), "Per-proxy, absent: " + cells);
        assertEquals("2s", cells.get(4).asString(), "Interval");
    }

    private static String proxy(String name, String extraSpec) {
        return """
                {"apiVersion":"crawl.example.com/v1alpha1","kind":"Proxy","metadata":{"name":"%s","namespace":"default"},
                 "spec":{"mode":"External","maxLeases":2,"endpoint":{"host":"127.0.0.1","port":9}%s}}"""
                .formatted(name, extraSpec.isEmpty() ? "" : "," + extraSpec);
    }

    private static HttpResponse<String> send(String method, String path, String body, String contentType)
            throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(api.url() + path)).timeout(Duration.ofSeconds(10))
                .header("Authorization", "Bearer " + TOKEN.value())
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
