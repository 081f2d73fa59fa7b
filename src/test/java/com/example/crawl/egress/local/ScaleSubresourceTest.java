package com.example.crawl.egress.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.ProxyPool;
import io.fabric8.kubernetes.api.model.autoscaling.v1.Scale;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The embedded API serves {@code proxypools/NAME/scale} as the API server serves a CRD's scale
 * subresource: an {@code autoscaling/v1 Scale} read from the pool, and writes of it that change
 * {@code spec.replicas} and nothing else.
 */
class ScaleSubresourceTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String POOLS = "/apis/crawl.example.com/v1alpha1/namespaces/default/proxypools";
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
    void shouldReadTheScaleFromTheSpecAndStatusPaths() throws Exception {
        JsonNode pool = create("read", "\"replicas\":4,");
        send("PUT", POOLS + "/read/status", withStatus(pool, "{\"replicas\":3,\"selector\":\"crawl.example.com/pool=read\"}"),
                "application/json");

        JsonNode scale = ok(send("GET", POOLS + "/read/scale", null, null));

        assertEquals("Scale", scale.get("kind").asString());
        assertEquals("autoscaling/v1", scale.get("apiVersion").asString());
        assertEquals("read", scale.at("/metadata/name").asString());
        assertEquals("default", scale.at("/metadata/namespace").asString());
        assertEquals(pool.at("/metadata/uid").asString(), scale.at("/metadata/uid").asString());
        assertFalse(scale.at("/metadata/resourceVersion").asString().isEmpty());
        assertEquals(4, scale.at("/spec/replicas").asInt());
        assertEquals(3, scale.at("/status/replicas").asInt());
        assertEquals("crawl.example.com/pool=read", scale.at("/status/selector").asString());
    }

    @Test
    void shouldReadAnAbsentStatusAsNoReplicasAndAnAbsentSpecAsTheCrdDefault() throws Exception {
        create("fresh", "");

        JsonNode scale = ok(send("GET", POOLS + "/fresh/scale", null, null));

        assertEquals(1, scale.at("/spec/replicas").asInt(), "the CRD's default of spec.replicas");
        assertEquals(0, scale.at("/status/replicas").asInt());
        assertTrue(scale.at("/status/selector").isMissingNode(), scale.toString());
    }

    @Test
    void shouldSetTheReplicasOfThePoolOnAMergePatchAsKubectlScaleSendsIt() throws Exception {
        create("merged", "\"replicas\":2,");

        JsonNode scale = ok(send("PATCH", POOLS + "/merged/scale", "{\"spec\":{\"replicas\":5}}",
                "application/merge-patch+json"));

        assertEquals(5, scale.at("/spec/replicas").asInt());
        JsonNode pool = ok(send("GET", POOLS + "/merged", null, null));
        assertEquals(5, pool.at("/spec/replicas").asInt());
        assertEquals("local", pool.at("/spec/template/spec/provider").asString(), "the rest of the spec is kept");
        assertEquals(scale.at("/metadata/resourceVersion").asString(), pool.at("/metadata/resourceVersion").asString());
        assertEquals(2, pool.at("/metadata/generation").asInt(), "a spec change, as the controller sees it: " + pool);
    }

    @Test
    void shouldSetTheReplicasOnAJsonPatch() throws Exception {
        create("jsonpatched", "\"replicas\":2,");

        JsonNode scale = ok(send("PATCH", POOLS + "/jsonpatched/scale",
                "[{\"op\":\"replace\",\"path\":\"/spec/replicas\",\"value\":0}]", "application/json-patch+json"));

        assertEquals(0, scale.at("/spec/replicas").asInt());
        assertEquals(0, ok(send("GET", POOLS + "/jsonpatched", null, null)).at("/spec/replicas").asInt());
    }

    @Test
    void shouldRefuseAPutOfAStaleScaleAndApplyOneWithoutAResourceVersion() throws Exception {
        create("put", "\"replicas\":2,");
        JsonNode stale = ok(send("GET", POOLS + "/put/scale", null, null));
        ok(send("PATCH", POOLS + "/put/scale", "{\"spec\":{\"replicas\":3}}", "application/merge-patch+json"));

        HttpResponse<String> conflict = send("PUT", POOLS + "/put/scale",
                stale.toString().replace("\"replicas\":2", "\"replicas\":7"), "application/json");

        assertEquals(409, conflict.statusCode(), conflict.body());
        assertEquals("Conflict", JSON.readTree(conflict.body()).get("reason").asString());
        assertEquals(3, ok(send("GET", POOLS + "/put", null, null)).at("/spec/replicas").asInt());
        String unconditional = "{\"apiVersion\":\"autoscaling/v1\",\"kind\":\"Scale\","
                + "\"metadata\":{\"name\":\"put\",\"namespace\":\"default\"},\"spec\":{\"replicas\":7}}";
        assertEquals(7, ok(send("PUT", POOLS + "/put/scale", unconditional, "application/json"))
                .at("/spec/replicas").asInt());
    }

    @Test
    void shouldRefuseNegativeReplicasAndKeepThePool() throws Exception {
        create("negative", "\"replicas\":2,");

        HttpResponse<String> refused = send("PATCH", POOLS + "/negative/scale", "{\"spec\":{\"replicas\":-1}}",
                "application/merge-patch+json");

        assertEquals(422, refused.statusCode(), refused.body());
        assertEquals(2, ok(send("GET", POOLS + "/negative", null, null)).at("/spec/replicas").asInt());
    }

    @Test
    void shouldAnswerNotFoundForAnUnknownPool() throws Exception {
        assertEquals(404, send("GET", POOLS + "/nobody/scale", null, null).statusCode());
        assertEquals(404, send("PATCH", POOLS + "/nobody/scale", "{\"spec\":{\"replicas\":1}}",
                "application/merge-patch+json").statusCode());
    }

    @Test
    void shouldAnswerNotFoundForTheScaleOfAKindWithout() throws Exception {
        HttpResponse<String> answer = send("GET", "/apis/crawl.example.com/v1alpha1/namespaces/default/proxies/x/scale",
                null, null);

        assertEquals(404, answer.statusCode(), answer.body());
    }

    @Test
    void shouldScaleThroughFabric8() throws Exception {
        create("fabric8", "\"replicas\":2,");

        api.client().resources(ProxyPool.class).inNamespace("default").withName("fabric8").scale(3);

        Scale scale = api.client().resources(ProxyPool.class).inNamespace("default").withName("fabric8").scale();
        assertEquals(3, scale.getSpec().getReplicas());
        assertEquals(3, api.client().resources(ProxyPool.class).inNamespace("default").withName("fabric8").get()
                .getSpec().replicas());
    }

    @Test
    void shouldListTheScaleSubresourceInDiscoveryAsAnAutoscalingV1Scale() throws Exception {
        JsonNode resources = ok(send("GET", "/apis/crawl.example.com/v1alpha1", null, null)).get("resources");

        JsonNode scale = StreamSupport.stream(resources.spliterator(), false)
                .filter(r -> r.get("name").asString().equals("proxypools/scale")).findFirst().orElseThrow();

        assertEquals("autoscaling", scale.get("group").asString());
        assertEquals("v1", scale.get("version").asString());
        assertEquals("Scale", scale.get("kind").asString());
    }

    private static JsonNode create(String name, String replicas) throws IOException, InterruptedException {
        String pool = """
                {"apiVersion":"crawl.example.com/v1alpha1","kind":"ProxyPool","metadata":{"name":"%s","namespace":"default"},
                 "spec":{%s"template":{"spec":{"provider":"local"}}}}""".formatted(name, replicas);
        HttpResponse<String> created = send("POST", POOLS, pool, "application/json");
        assertEquals(201, created.statusCode(), created.body());
        return JSON.readTree(created.body());
    }

    private static String withStatus(JsonNode pool, String status) {
        return pool.toString().replaceFirst("}$", ",\"status\":" + status + "}");
    }

    private static JsonNode ok(HttpResponse<String> answer) {
        assertEquals(200, answer.statusCode(), answer.body());
        return JSON.readTree(answer.body());
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
