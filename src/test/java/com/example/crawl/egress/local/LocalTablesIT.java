package com.example.crawl.egress.local;

import static com.example.crawl.egress.local.LocalOperator.freePort;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.client.Config;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Local mode shows its provider and its Proxies as a cluster would: the jar run with
 * {@code --local} writes the {@code local} provider's {@code ProviderHealth}, and its embedded API
 * answers kubectl's table requests with the CRDs' printer columns filled. Checked over HTTP with
 * kubectl's own {@code Accept} header, and with kubectl itself where it is installed (it is not a
 * package CI can install, so only that test is skipped without it).
 */
class LocalTablesIT {

    private static final Path KUBECTL = Path.of("/usr/bin/kubectl");
    private static final String PROVIDER_HEALTHS = "/apis/crawl.example.com/v1alpha1/providerhealths";
    private static final String PROXIES = "/apis/crawl.example.com/v1alpha1/namespaces/default/proxies";
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    static Path tmp;
    private static LocalOperator op;
    private static Path kubeconfig;
    private static String api;
    private static String bearer; // "Bearer <the embedded API's token>", from the kubeconfig
    private static HttpClient http; // trusting the certificate the kubeconfig trusts

    @BeforeAll
    static void startLocalMode() throws Exception {
        LocalOperator.requireSquid();
        op = LocalOperator.start(tmp.resolve("state"), freePort(), freePort());
        kubeconfig = Path.of(op.banner("kubeconfig"));
        Config config = Config.fromKubeconfig(Files.readString(kubeconfig));
        api = config.getMasterUrl().replaceAll("/$", "");
        bearer = "Bearer " + config.getAutoOAuthToken();
        http = TrustingClient.of(new String(Base64.getDecoder().decode(config.getCaCertData()), StandardCharsets.US_ASCII));
        op.await(() -> cells(PROVIDER_HEALTHS, "local").size() == 6 && !cells(PROVIDER_HEALTHS, "local").get(2)
                .equals("null"), "the local provider's ProviderHealth with a status");
        op.await(() -> cells(PROXIES, "local-eu").size() == 7 && cells(PROXIES, "local-eu").get(1).equals("Ready"),
                "local-eu Ready");
    }

    @AfterAll
    static void stop() {
        if (op != null) {
            op.close();
        }
    }

    @Test
    void shouldAnswerKubectlsTableRequestWithTheProviderHealthColumnsFilled() throws Exception {
        JsonNode table = get(PROVIDER_HEALTHS);

        assertEquals("Table", table.get("kind").asString());
        assertEquals("meta.k8s.io/v1", table.get("apiVersion").asString());
        List<String> headers = new ArrayList<>();
        table.get("columnDefinitions").forEach(c -> headers.add(c.get("name").asString()));
        assertEquals(List.of("Name", "Type", "Ready", "Targets", "Last Check", "Age"), headers);
        List<String> local = cells(PROVIDER_HEALTHS, "local");
        assertEquals(List.of("local", "local", "true", "1/1"), local.subList(0, 4), local.toString());
        assertTrue(local.get(4).matches("\\d+[smh]"), "Last Check is an age: " + local);
        assertTrue(local.get(5).matches("\\d+[smh]"), "Age: " + local);
        assertEquals("PartialObjectMetadata", table.at("/rows/0/object/kind").asString());
    }

    @Test
    void shouldAnswerTheProxiesTableAsWellAndPlainJsonToEveryoneElse() throws Exception {
        List<String> eu = cells(PROXIES, "local-eu");
        assertEquals(List.of("local-eu", "Ready", "local"), eu.subList(0, 3), eu.toString());
        assertTrue(eu.get(3).startsWith("127."), "IP: " + eu);
        assertEquals("True", eu.get(5), "Healthy, from the condition's filter: " + eu);

        HttpResponse<String> plain = http.send(HttpRequest.newBuilder(URI.create(api + PROVIDER_HEALTHS))
                .header("Accept", "application/json").header("Authorization", bearer).build(),
                HttpResponse.BodyHandlers.ofString());
        JsonNode list = JSON.readTree(plain.body());
        assertTrue(list.has("items") && !list.has("columnDefinitions"), "a plain list: " + plain.body());
    }

    @Test
    void shouldShowTheColumnsInKubectlGet() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(KUBECTL), "kubectl is not installed at " + KUBECTL
                + " (no package of CI's sources has it); the HTTP tests cover the tables without it");

        List<String> ph = kubectl("get", "ph");
        assertEquals(List.of("NAME", "TYPE", "READY", "TARGETS", "LAST", "CHECK", "AGE"),
                List.of(ph.get(0).trim().split("\\s+")), String.join("\n", ph));
        assertTrue(ph.get(1).matches("local\\s+local\\s+true\\s+1/1\\s+\\d+[smh]\\s+\\d+[smh]"), String.join("\n", ph));

        List<String> px = kubectl("get", "px", "-n", "default", "-o", "wide");
        assertEquals(List.of("NAME", "PHASE", "PROVIDER", "IP", "LATENCY", "HEALTHY", "AGE"),
                List.of(px.get(0).trim().split("\\s+")), String.join("\n", px));
        assertTrue(px.stream().anyMatch(l -> l.matches("local-eu\\s+Ready\\s+local\\s+127\\.\\S+\\s+\\d+\\s+True\\s+\\S+")),
                String.join("\n", px));
    }

    /** The cells of the row named {@code name} in the table at {@code path}, as JSON text (strings unquoted). */
    private static List<String> cells(String path, String name) {
        try {
            for (JsonNode row : get(path).path("rows")) {
                if (row.at("/cells/0").asString("").equals(name)) {
                    List<String> out = new ArrayList<>();
                    row.get("cells").forEach(c -> out.add(c.isString() ? c.asString() : c.toString()));
                    return out;
                }
            }
            return List.of();
        } catch (IOException | InterruptedException e) {
            return List.of();
        }
    }

    private static JsonNode get(String path) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(api + path))
                .header("Accept", PrinterColumnsTest.KUBECTL_ACCEPT).header("Authorization", bearer)
                .timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(r.body());
    }

    private static List<String> kubectl(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(KUBECTL.toString(), "--kubeconfig", kubeconfig.toString(),
                "--cache-dir", tmp.resolve("kube-cache").toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "kubectl did not finish");
        assertEquals(0, p.exitValue(), out);
        return out.lines().toList();
    }
}
