package com.example.crawl.egress.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The embedded API admits only its token, on both ports: the mock server's, which the operator's
 * client uses, and kubectl's front. Without it, or with another, nothing is read or written.
 */
class EmbeddedApiAuthTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final ApiToken TOKEN = ApiToken.generate();
    private static final String SECRETS = "/api/v1/namespaces/default/secrets";
    private static final String PROXIES = "/apis/crawl.example.com/v1alpha1/namespaces/default/proxies";
    private static final String PASSWORD = "s3cret-proxy-password";
    private static EmbeddedApiServer api;
    private static HttpClient http;

    @BeforeAll
    static void start() {
        api = EmbeddedApiServer.start(TOKEN);
        http = TrustingClient.of(api.certificatePem());
        api.client().secrets().inNamespace("default").resource(new SecretBuilder().withNewMetadata()
                .withName("proxy-credentials").endMetadata().withStringData(Map.of("password", PASSWORD)).build()).create();
    }

    @AfterAll
    static void stop() {
        api.close();
    }

    /** Each port, with each wrong way to ask: no header, another token, the token under another scheme or lengthened. */
    static List<Object[]> strangers() {
        Map<String, String> headers = Map.of("no token", "", "another token", "Bearer " + ApiToken.generate().value(),
                "Basic scheme", "Basic " + TOKEN.value(), "token lengthened", "Bearer " + TOKEN.value() + "x");
        return List.of("front", "mock").stream()
                .flatMap(port -> headers.entrySet().stream().map(h -> new Object[] {port, h.getKey(), h.getValue()}))
                .toList();
    }

    @ParameterizedTest(name = "{0} port, {1}")
    @MethodSource("strangers")
    void shouldRefuseToRevealSecretsWithoutTheToken(String port, String label, String authorization) throws Exception {
        HttpResponse<String> r = send(url(port) + SECRETS, "GET", null, authorization);

        assertUnauthorized(r);
        assertFalse(r.body().contains("proxy-credentials"), r.body());
    }

    @ParameterizedTest(name = "{0} port, {1}")
    @MethodSource("strangers")
    void shouldRefuseToStoreAProxyWithoutTheToken(String port, String label, String authorization) throws Exception {
        String name = "planted-" + port + "-" + label.replace(' ', '-').toLowerCase(java.util.Locale.ROOT);

        HttpResponse<String> r = send(url(port) + PROXIES, "POST", """
                {"apiVersion":"crawl.example.com/v1alpha1","kind":"Proxy","metadata":{"name":"%s","namespace":"default"},
                 "spec":{"mode":"External","maxLeases":2,"endpoint":{"host":"127.0.0.1","port":9}}}""".formatted(name),
                authorization);

        assertUnauthorized(r);
        assertEquals(404, send(api.url() + PROXIES + "/" + name, "GET", null, "Bearer " + TOKEN.value()).statusCode());
    }

    @Test
    @Timeout(30)
    void shouldRefuseAStreamedWatchOnTheFrontWithoutTheToken() throws Exception {
        // timeoutSeconds ends the stream should it be let through, so the test fails rather than hangs
        assertUnauthorized(send(api.url() + SECRETS + "?watch=true&timeoutSeconds=2", "GET", null, ""));
    }

    @Test
    @Timeout(30)
    void shouldRefuseAWebSocketWatchOnTheMockWithoutTheToken() {
        URI ws = URI.create(url("mock").replaceFirst("^http", "ws") + SECRETS + "?watch=true");

        CompletionException e = assertThrows(CompletionException.class,
                () -> http.newWebSocketBuilder().buildAsync(ws, new WebSocket.Listener() { }).join());

        WebSocketHandshakeException refused = (WebSocketHandshakeException) e.getCause();
        assertEquals(401, refused.getResponse().statusCode());
    }

    @Test
    void shouldAnswerKubectlWithTheSecretsWhenItSendsTheToken() throws Exception {
        HttpResponse<String> r = send(api.url() + SECRETS, "GET", null, "bearer " + TOKEN.value());

        assertEquals(200, r.statusCode(), r.body());
        assertEquals("proxy-credentials", JSON.readTree(r.body()).at("/items/0/metadata/name").asString());
    }

    @Test
    @Timeout(30)
    void shouldLetTheOperatorsClientWatchOverItsWebSocket() throws Exception {
        BlockingQueue<String> added = new LinkedBlockingQueue<>();
        try (Watch watch = api.client().secrets().inNamespace("default").watch(new Watcher<Secret>() {
            @Override
            public void eventReceived(Action action, Secret secret) {
                added.add(action + " " + secret.getMetadata().getName());
            }

            @Override
            public void onClose(WatcherException cause) {
                added.add("closed: " + cause);
            }
        })) {
            api.client().secrets().inNamespace("default").resource(new SecretBuilder().withNewMetadata()
                    .withName("watched").endMetadata().build()).create();

            String event = added.poll(20, TimeUnit.SECONDS);
            while ("ADDED proxy-credentials".equals(event)) { // the mock replays what is stored first
                event = added.poll(20, TimeUnit.SECONDS);
            }
            assertEquals("ADDED watched", event);
        }
    }

    private static void assertUnauthorized(HttpResponse<String> r) {
        assertEquals(401, r.statusCode(), r.body());
        JsonNode status = JSON.readTree(r.body());
        assertEquals("Status", status.path("kind").asString(), r.body());
        assertEquals("v1", status.path("apiVersion").asString(), r.body());
        assertEquals("Failure", status.path("status").asString(), r.body());
        assertEquals("Unauthorized", status.path("reason").asString(), r.body());
        assertEquals("Unauthorized", status.path("message").asString(), r.body());
        assertEquals(401, status.path("code").asInt(), r.body());
    }

    private static String url(String port) {
        return port.equals("front") ? api.url() : api.client().getMasterUrl().toString().replaceAll("/$", "");
    }

    private static HttpResponse<String> send(String url, String method, String body, String authorization)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (!authorization.isEmpty()) {
            b.header("Authorization", authorization);
        }
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
