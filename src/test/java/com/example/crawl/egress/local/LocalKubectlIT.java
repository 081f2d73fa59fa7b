package com.example.crawl.egress.local;

import static com.example.crawl.egress.local.LocalOperator.freePort;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.ItRequirements;
import io.fabric8.kubernetes.client.Config;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kubectl against local mode behaves as against a cluster: the jar run with {@code --local}, and
 * the real kubectl on the kubeconfig it writes. {@code get} shows the printer columns' values,
 * {@code apply} validates without {@code --validate=false} and the server refuses what the CRD's
 * schema refuses, {@code describe} shows conditions and the operator's Events, and
 * {@code get -w} streams a change, {@code scale} resizes a pool. kubectl gets in with the token the private kubeconfig carries;
 * without it, nobody does.
 */
class LocalKubectlIT {

    private static final Path KUBECTL = Path.of("/usr/bin/kubectl");
    private static final Pattern READY_ROW = Pattern.compile("local-(eu|us|asia)\\s+Ready\\s+local\\s+127\\.\\S+\\s+\\d+\\s+\\S+");

    @TempDir
    static Path tmp;
    private static LocalOperator op;
    private static Path kubeconfig;

    record Run(int exit, String out) { }

    @BeforeAll
    static void startLocalMode() throws Exception {
        LocalOperator.requireSquid();
        ItRequirements.require("kubectl", Files.isExecutable(KUBECTL),
                "install kubectl 1.32 at /usr/bin/kubectl from https://kubernetes.io/docs/tasks/tools/");
        op = LocalOperator.start(tmp.resolve("state"), freePort(), freePort());
        kubeconfig = Path.of(op.banner("kubeconfig"));
        op.await(() -> READY_ROW.matcher(kubectl("get", "px", "local-eu", "--no-headers").out()).find(), "local-eu Ready");
    }

    @AfterAll
    static void stop() {
        if (op != null) {
            op.close();
        }
    }

    @Test
    void shouldShowPhaseProviderIpAndLatencyOfTheSamples() {
        op.await(() -> kubectl("get", "px").out().lines().filter(l -> READY_ROW.matcher(l).matches()).count() == 3,
                "the three samples Ready");

        List<String> px = kubectl("get", "px").out().lines().toList();
        assertEquals(List.of("NAME", "PHASE", "PROVIDER", "IP", "LATENCY", "AGE"),
                List.of(px.get(0).trim().split("\\s+")), String.join("\n", px));
    }

    @Test
    void shouldApplyTheExternalSampleWithoutFlags() {
        Run apply = kubectl("apply", "-f", "deploy/samples/proxy-external.yaml");

        assertEquals(0, apply.exit(), apply.out());
        assertTrue(apply.out().contains("proxy.crawl.example.com/partner-us-1 created"), apply.out());
        assertEquals("8", kubectl("get", "px", "partner-us-1", "-o", "jsonpath={.spec.maxLeases}").out());
        Run again = kubectl("apply", "-f", "deploy/samples/proxy-external.yaml");
        assertEquals(0, again.exit(), again.out());
        assertTrue(again.out().contains("proxy.crawl.example.com/partner-us-1 unchanged"), again.out());
    }

    @Test
    void shouldApplyTheTargetPolicySampleAndShowItAccepted() {
        Run apply = kubectl("apply", "-f", "deploy/samples/targetpolicy.yaml");

        assertEquals(0, apply.exit(), apply.out());
        assertTrue(apply.out().contains("targetpolicy.crawl.example.com/shop-example created"), apply.out());
        op.await(() -> kubectl("get", "tp", "shop-example", "--no-headers").out().contains("True"),
                "shop-example Accepted");
        List<String> tp = kubectl("get", "tp").out().lines().toList();
        assertEquals(List.of("NAME", "HOSTS", "MAX", "PER-PROXY", "INTERVAL", "ACCEPTED", "AGE"),
                List.of(tp.get(0).trim().split("\\s+")), String.join("\n", tp));
        assertTrue(tp.get(1).contains("[\"shop.example.com\",\"*.shop.example.com\"]"), String.join("\n", tp));
        assertEquals(0, kubectl("delete", "tp", "shop-example").exit());
    }

    /** The README's walkthrough: a client Secret made and labelled with kubectl, then used and deleted. */
    @Test
    void shouldMakeUseAndRevokeADiscoveryClientAsTheReadmeDoes() throws Exception {
        String token = "readme-walkthrough-0123456789abcdef0123456789";
        // As the README has it (kubectl create secret sends protobuf, which the embedded API does not read).
        Run apply = kubectlWithInput("""
                apiVersion: v1
                kind: Secret
                metadata:
                  name: eu-crawler
                  labels: {crawl.example.com/discovery-client: "true"}
                stringData: {token: %s, namespaces: default, selector: '{"region":"eu-west"}', maxLeases: "2"}
                """.formatted(token), "apply", "-f", "-");
        assertEquals(0, apply.exit(), apply.out());
        op.await(() -> callStatus(token, "GET", "/v1/proxies", null) == 200, "the labelled Secret a client");
        LocalOperator.Reply listed = op.call(token, "GET", "/v1/proxies", null);
        List<String> names = new ArrayList<>();
        listed.body().get("proxies").forEach(p -> names.add(p.get("name").asString()));
        assertEquals(List.of("local-eu"), names, "its scope: the eu-west sample");
        LocalOperator.Reply outside = op.call(token, "POST", "/v1/leases", "{\"selector\":{\"region\":\"us-east\"}}");
        assertEquals(403, outside.status(), String.valueOf(outside.body()));
        assertEquals(0, kubectl("delete", "secret", "eu-crawler").exit());
        op.await(() -> callStatus(token, "GET", "/v1/proxies", null) == 401, "the deleted client refused");
    }

    private static int callStatus(String token, String method, String path, String body) {
        try {
            return op.call(token, method, path, body).status();
        } catch (Exception e) {
            return -1;
        }
    }

    @Test
    void shouldRefuseAnUnknownFieldAndStoreNothing() throws IOException {
        Path sample = sample("bad-field", "  colour: blue\n");

        Run apply = kubectl("apply", "-f", sample.toString());

        assertNotEquals(0, apply.exit(), apply.out());
        assertTrue(apply.out().contains("unknown field \"spec.colour\""), apply.out());
        assertNotStored("bad-field");
    }

    @Test
    void shouldRefuseAWronglyTypedFieldAndStoreNothing() throws IOException {
        Path sample = sample("bad-type", "  maxLeases: many\n");

        Run apply = kubectl("apply", "-f", sample.toString());

        assertNotEquals(0, apply.exit(), apply.out());
        assertTrue(apply.out().contains("spec.maxLeases") && apply.out().contains("must be of type integer"), apply.out());
        assertNotStored("bad-type");
    }

    @Test
    void shouldDescribeConditionsAndTheOperatorsEvents() {
        op.await(() -> kubectl("describe", "px", "local-eu").out().contains("InstanceCreated"), "an Event in describe");

        String described = kubectl("describe", "px", "local-eu").out();
        String conditions = described.substring(described.indexOf("Conditions:"), described.indexOf("\nEvents:"));
        assertTrue(Pattern.compile("Type:\\s+Provisioned").matcher(conditions).find(), described);
        assertTrue(Pattern.compile("Type:\\s+Healthy").matcher(conditions).find(), described);
        String events = described.substring(described.indexOf("\nEvents:"));
        assertTrue(Pattern.compile("Normal\\s+InstanceCreated\\s+\\S+\\s+crawl\\.example\\.com/egress-proxies-operator\\s+"
                + "Created instance local/").matcher(events).find(), described);
    }

    @Test
    void shouldStreamAProxyCreatedAfterTheWatchStarted() throws Exception {
        Process watch = start("get", "px", "-w");
        try {
            BlockingQueue<String> lines = new LinkedBlockingQueue<>();
            Thread.ofVirtual().start(() -> readLines(watch, lines));
            List<String> seen = new ArrayList<>();
            awaitLine(lines, seen, l -> l.startsWith("local-eu"), "local-eu in the initial listing");

            Run create = kubectl("apply", "-f", sample("watched", "").toString());
            assertEquals(0, create.exit(), create.out());

            awaitLine(lines, seen, l -> l.startsWith("watched "), "the new Proxy streamed");
            assertTrue(watch.isAlive(), "kubectl get -w is still watching:\n" + String.join("\n", seen));
        } finally {
            watch.destroy();
            watch.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /**
     * The sample pool is listed with a Deployment's columns, and {@code kubectl scale} changes its
     * {@code spec.replicas} through the scale subresource. (Members are the pool controller's.)
     */
    @Test
    void shouldListTheSamplePoolAndScaleIt() {
        Run pools = kubectl("get", "pool");
        List<String> lines = pools.out().lines().toList();
        assertEquals(List.of("NAME", "DESIRED", "CURRENT", "READY", "UP-TO-DATE", "AGE"),
                List.of(lines.get(0).trim().split("\\s+")), pools.out());
        assertTrue(lines.stream().anyMatch(l -> l.matches("local-pool\\s+2\\s.*")), pools.out());
        assertEquals("AVAILABLE", List.of(kubectl("get", "pool", "-o", "wide").out().lines().findFirst().orElseThrow()
                .trim().split("\\s+")).get(5));

        Run scale = kubectl("scale", "pool/local-pool", "--replicas=3", "-v=6");

        assertEquals(0, scale.exit(), scale.out());
        assertTrue(scale.out().contains("proxypool.crawl.example.com/local-pool scaled"), scale.out());
        assertTrue(Pattern.compile("(?m)^.*PATCH.*/apis/crawl\\.example\\.com/v1alpha1/namespaces/default/"
                + "proxypools/local-pool/scale\\b.*200.*$").matcher(scale.out()).find(),
                "through the subresource: " + scale.out());
        assertEquals("3", kubectl("get", "pool", "local-pool", "-o", "jsonpath={.spec.replicas}").out());
        Run guarded = kubectl("scale", "pool/local-pool", "--current-replicas=2", "--replicas=5");
        assertNotEquals(0, guarded.exit(), guarded.out());
        assertEquals("3", kubectl("get", "pool", "local-pool", "-o", "jsonpath={.spec.replicas}").out());
    }

    @Test
    void shouldKeepTheApiTokenInThePrivateKubeconfigOnly() throws Exception {
        Config config = Config.fromKubeconfig(Files.readString(kubeconfig));
        String token = config.getAutoOAuthToken();

        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(kubeconfig)));
        assertFalse(op.log().contains(token), "the operator printed the embedded API's token");
        String pem = new String(Base64.getDecoder().decode(config.getCaCertData()), StandardCharsets.US_ASCII);
        HttpResponse<String> stranger = TrustingClient.of(pem).send(HttpRequest.newBuilder(
                URI.create(config.getMasterUrl() + "api/v1/namespaces/default/secrets")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(401, stranger.statusCode(), stranger.body());
    }

    /** An External Proxy named {@code name} with {@code extraSpec} appended to its spec. */
    private static Path sample(String name, String extraSpec) throws IOException {
        Path file = tmp.resolve(name + ".yaml");
        Files.writeString(file, """
                apiVersion: crawl.example.com/v1alpha1
                kind: Proxy
                metadata:
                  name: %s
                spec:
                  mode: External
                  endpoint:
                    host: 127.0.0.1
                    port: 9
                """.formatted(name) + extraSpec);
        return file;
    }

    private static void assertNotStored(String name) {
        Run get = kubectl("get", "px", name);
        assertNotEquals(0, get.exit(), get.out());
        assertTrue(get.out().contains("NotFound") || get.out().contains("not found"), get.out());
    }

    private static void awaitLine(BlockingQueue<String> lines, List<String> seen,
            Predicate<String> wanted, String what) throws InterruptedException {
        long end = System.nanoTime() + LocalOperator.WAIT.toNanos();
        while (System.nanoTime() - end < 0) {
            String line = lines.poll(end - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (line == null) {
                break;
            }
            seen.add(line);
            if (wanted.test(line)) {
                return;
            }
        }
        throw new AssertionError("timed out waiting for " + what + "; kubectl printed:\n" + String.join("\n", seen));
    }

    private static void readLines(Process p, BlockingQueue<String> lines) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                lines.add(line);
            }
        } catch (IOException e) {
            lines.add("(reading kubectl's output failed: " + e + ")");
        }
    }

    private static Process start(String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(KUBECTL.toString(), "--kubeconfig", kubeconfig.toString(),
                "--cache-dir", tmp.resolve("kube-cache").toString()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    /** Runs kubectl to the end (bounded); its exit code and its output, stderr included. */
    private static Run kubectl(String... args) {
        return kubectlWithInput("", args);
    }

    /** As {@link #kubectl}, with {@code input} on its standard input. */
    private static Run kubectlWithInput(String input, String... args) {
        try {
            List<String> bounded = new ArrayList<>(List.of("--request-timeout=20s"));
            bounded.addAll(List.of(args));
            Process p = start(bounded.toArray(String[]::new));
            try (var in = p.getOutputStream()) {
                in.write(input.getBytes(StandardCharsets.UTF_8));
            }
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("kubectl " + String.join(" ", args) + " did not finish");
            }
            return new Run(p.exitValue(), out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
