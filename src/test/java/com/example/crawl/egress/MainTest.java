package com.example.crawl.egress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.log.LogFormat;
import com.example.crawl.egress.log.LogSetup;
import com.example.crawl.egress.proxy.MockCluster;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.event.Level;

class MainTest {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    /**
     * Main points process-wide logging at this test's buffer and sets the JDK HTTP server's limits;
     * give later tests the defaults back.
     */
    @AfterEach
    void restoreProcessWideState() {
        LogSetup.configure(LogFormat.JSON, Level.INFO);
        JdkHttpServerLimits.clear();
    }

    private int run(Map<String, String> env, String... args) {
        return Main.run(List.of(args), env, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), new Shutdown());
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void shouldPrintHelpAndExitZero() {
        assertEquals(0, run(Map.of(), "--help"));
        String help = out.toString(StandardCharsets.UTF_8);
        assertTrue(help.startsWith("Usage: java -jar egress-proxies-operator.jar"), help);
        assertTrue(help.contains("DISCOVERY_TOKEN"));
        assertTrue(help.contains("  --max-concurrent-reconciles=N\n"));
        assertEquals("", err());
    }

    @Test
    void shouldExitTwoWithOneLineNamingAnOtelVariableThisBuildCannotServe() {
        assertEquals(2, run(Map.of("DISCOVERY_TOKEN", "t", "OTEL_TRACES_EXPORTER", "zipkin")));
        assertEquals("egress-proxies-operator: invalid value \"zipkin\" for environment variable OTEL_TRACES_EXPORTER: "
                + "expected otlp or none (this build ships only the OTLP exporter)\n", err());
    }

    @Test
    void shouldExitTwoWithOneLineWhenTheSdkRefusesAnOtelVariable() {
        assertEquals(2, run(Map.of("DISCOVERY_TOKEN", "t", "OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1",
                "OTEL_TRACES_SAMPLER", "sometimes")));
        assertTrue(err().startsWith("egress-proxies-operator: OpenTelemetry cannot be configured from the OTEL_* "
                + "variables: "), err());
        assertEquals(1, err().lines().count(), err());
    }

    @Test
    void shouldStopWhatItStartedStageByStageInTheOrderShutdownDeclares() throws Exception {
        Map<String, String> fabric8 = Map.of("kubernetes.auth.tryKubeConfig", "false",
                "kubernetes.auth.tryServiceAccount", "false", "kubernetes.namespace", "ops");
        try (MockCluster cluster = MockCluster.start()) {
            fabric8.forEach(System::setProperty);
            System.setProperty("kubernetes.master", cluster.client().getMasterUrl().toString());
            Shutdown shutdown = new Shutdown();
            Thread main = Thread.ofPlatform().start(() -> Main.run(List.of("--log-level=debug", "--health-address=0",
                    "--metrics-address=127.0.0.1:0", "--discovery-address=127.0.0.1:0", "--leader-elect=false"),
                    Map.of("DISCOVERY_TOKEN", "t"), new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8), shutdown));
            // The leader's components, the provider-health monitor last: once it logs, all have started.
            MockCluster.await(Duration.ofSeconds(30), () -> out().contains("Started provider health checks")
                    || !main.isAlive());

            shutdown.stop();
            main.join(Duration.ofSeconds(60));

            List<Shutdown.Stage> stages = out().lines().filter(l -> l.contains("\"msg\":\"Stopped component\""))
                    .map(l -> Shutdown.Stage.valueOf(l.replaceAll(".*\"stage\":\"(\\w+)\".*", "$1"))).toList();
            assertEquals(List.of(Shutdown.Stage.values()), stages.stream().distinct().toList(),
                    "every stage, each once, in declaration order:\n" + out());
            assertEquals("", err());
        } finally {
            fabric8.keySet().forEach(System::clearProperty);
            System.clearProperty("kubernetes.master");
        }
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void shouldExitTwoWithOneLineNamingABadFlag() {
        assertEquals(2, run(Map.of("DISCOVERY_TOKEN", "t"), "--max-concurrent-reconciles=-1"));
        assertEquals("egress-proxies-operator: invalid value \"-1\" for flag --max-concurrent-reconciles: "
                + "must be between 1 and 256\n", err());
    }

    @Test
    void shouldSetTheJdkHttpServerLimitsFromTheFlagsBeforeStarting(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("providers.yaml");
        Files.writeString(file, "providers: [{name: gcp-eu, type: gcp}]\n");
        assertEquals(2, run(Map.of("DISCOVERY_TOKEN", "t"), "--providers-config=" + file,
                "--discovery-max-connections=600", "--discovery-request-timeout=2s", "--discovery-idle-timeout=1m"));
        assertEquals("600", System.getProperty("jdk.httpserver.maxConnections"));
        assertEquals("2", System.getProperty("sun.net.httpserver.maxReqTime"));
        assertEquals("60", System.getProperty("sun.net.httpserver.idleInterval"));
    }

    @Test
    void shouldExitTwoWithOneLineForABrokenProvidersConfig(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("providers.yaml");
        Files.writeString(file, "providers: [{name: gcp-eu, type: gcp}]\n");
        assertEquals(2, run(Map.of("DISCOVERY_TOKEN", "t"), "--providers-config=" + file));
        assertEquals("egress-proxies-operator: providers config: providers[0] (gcp-eu).gcp.project: required\n", err());
    }

    @Test
    void shouldRefuseAProvidersConfigInLocalMode(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("providers.yaml");
        Files.writeString(file, "providers: [{name: in-cluster, type: kubernetes}]\n");
        assertEquals(2, run(Map.of(), "--providers-config=" + file, "--local", "--local-state-dir=" + dir));
        assertEquals("egress-proxies-operator: --providers-config does not apply to --local, which runs its own "
                + "local provider\n", err());
    }

    @Test
    void shouldExitTwoNamingTheProviderTypesThisBuildHas(@TempDir Path dir) throws Exception {
        // local is a type of the config, but only --local runs it; a cluster's build has the other three
        Path file = dir.resolve("providers.yaml");
        Files.writeString(file, "providers: [{name: here, type: local, local: {stateDir: /tmp/x}}]\n");
        assertEquals(2, run(Map.of("DISCOVERY_TOKEN", "t"), "--providers-config=" + file));
        assertEquals("egress-proxies-operator: providers config: providers[0] (here).type: no provider of type "
                + "\"local\" in this build (available: gcp, kubernetes, kvm)\n", err());
    }

    @Test
    void shouldRefuseAKvmProviderWithoutAClusterName(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("providers.yaml");
        Files.writeString(file, "providers: [{name: kvm-home, type: kvm, kvm: {hosts: [{name: h, address: x, user: u, "
                + "privateKeyFile: k, knownHostsFile: kh}]}}]\n");
        assertEquals(2, run(Map.of("DISCOVERY_TOKEN", "t"), "--providers-config=" + file));
        assertEquals("egress-proxies-operator: providers config: provider kvm-home (type kvm) needs --cluster-name: a "
                + "name for this installation, unique among the operators using its hosts; its domains carry it in "
                + "their metadata, and only domains with it are listed and collected as orphans\n", err());
    }

    @Test
    void shouldRefuseAGcpProviderWithoutAClusterName(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("providers.yaml");
        Files.writeString(file, "providers: [{name: gcp-eu, type: gcp, gcp: {project: crawl-eu, "
                + "endpoint: \"http://127.0.0.1:9\"}}]\n");
        assertEquals(2, run(Map.of("DISCOVERY_TOKEN", "t"), "--providers-config=" + file));
        assertEquals("egress-proxies-operator: providers config: provider gcp-eu (type gcp) needs --cluster-name: a name "
                + "for this installation, unique among the operators using project crawl-eu; its VMs are labelled with "
                + "it, and only VMs with it are listed and collected as orphans\n", err());
    }

    @Test
    void shouldRefuseAClusterNameThatIsNoLabelValue() {
        assertEquals(2, run(Map.of("DISCOVERY_TOKEN", "t"), "--cluster-name=Prod_EU"));
        assertEquals("egress-proxies-operator: invalid value \"Prod_EU\" for flag --cluster-name: must be lowercase "
                + "letters, digits and '-', start with a letter, not end with '-', at most 63 characters (it becomes a "
                + "label value on every VM)\n", err());
    }

    @Test
    void shouldSayInOneLineHowToInstallSquidWhenLocalModeLacksIt(@TempDir Path dir) {
        assertEquals(1, run(Map.of("DISCOVERY_TOKEN", "t0ken-value"), "--local", "--local-state-dir=" + dir,
                "--local-squid=squid-that-is-not-installed"));
        String stdout = out.toString(StandardCharsets.UTF_8);
        assertTrue(stdout.startsWith("{\"ts\":") && stdout.contains("\"msg\":\"Operator failed to start\""), stdout);
        assertTrue(!stdout.contains("t0ken-value") && !err().contains("t0ken-value"), "the token is never printed");
        assertEquals(1, err().lines().count(), err());
        assertTrue(err().contains("squid-that-is-not-installed is not installed") && err().contains("apt-get install squid"),
                err());
    }
}
