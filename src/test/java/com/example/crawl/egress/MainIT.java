package com.example.crawl.egress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs the shaded jar the way users do: {@code java -jar target/egress-proxies-operator.jar}. */
class MainIT {

    private static final Path JAR = Path.of("target/egress-proxies-operator.jar");

    record Result(int exit, String out, String err) { }

    private static Result java(Map<String, String> env, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", JAR.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().remove("DISCOVERY_TOKEN");
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        pb.environment().putAll(env);
        Path out = Files.createTempFile("main-it", ".out");
        Path err = Files.createTempFile("main-it", ".err");
        Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("java -jar did not exit within 60 s");
        }
        return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    @Test
    void shouldPrintEveryFlagWithoutAnyJvmWarning() throws Exception {
        Result r = java(Map.of(), "--help");
        assertEquals(0, r.exit(), r.err());
        assertEquals("", r.err(), "stderr must be empty: no native-access, SLF4J or other warnings");
        for (String flag : List.of("--local", "--proxy-namespace=", "--providers-config=", "--leader-elect=",
                "--metrics-address=", "--health-address=", "--discovery-address=", "--max-concurrent-reconciles=",
                "--gc-interval=", "--provider-check-interval=", "--max-lease-ttl=", "--default-probe-url=",
                "--log-format=", "--log-level=", "--trace-health-probes")) {
            assertTrue(r.out().contains("  " + flag), flag + " missing from --help");
        }
        assertTrue(r.out().contains("  OTEL_EXPORTER_OTLP_ENDPOINT  "), "how to turn tracing on");
    }

    @Test
    void shouldExitTwoWithOneLineOnAnInvalidFlag() throws Exception {
        Result r = java(Map.of("DISCOVERY_TOKEN", "t"), "--log-level=verbose");
        assertEquals(2, r.exit());
        assertEquals("", r.out());
        assertEquals("egress-proxies-operator: invalid value \"verbose\" for flag --log-level: "
                + "expected one of error, warn, info, debug, trace\n", r.err());
    }

    @Test
    void shouldLogThroughOurOwnSlf4jProviderWithoutWarnings() throws Exception {
        // Nothing listens on port 1: the operator must give up on the first list with one clear line.
        Result r = java(Map.of("DISCOVERY_TOKEN", "t", "KUBERNETES_MASTER", "http://127.0.0.1:1",
                "KUBERNETES_REQUEST_RETRY_BACKOFFLIMIT", "0", "POD_NAMESPACE", "ops"), "--health-address=0", "--metrics-address=0",
                "--discovery-address=127.0.0.1:0");
        assertEquals(1, r.exit(), r.err());
        assertTrue(r.err().startsWith("egress-proxies-operator: cannot list Proxies, cloud-init and credentials Secrets "
                + "from "
                + "http://127.0.0.1:1/"), r.err());
        assertTrue(r.out().startsWith("{\"ts\":") && r.out().contains("\"msg\":\"Configuration loaded\""), r.out());
        assertEquals(1, r.err().lines().count(), "only our one line on stderr, no SLF4J or JVM warnings: " + r.err());
    }

    @Test
    void shouldBuildAKubernetesProviderFromTheProvidersConfig(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("providers.yaml");
        Files.writeString(file, "providers: [{name: in-cluster, type: kubernetes, kubernetes: {namespace: proxies}}]\n");
        Result r = java(Map.of("DISCOVERY_TOKEN", "t", "KUBERNETES_MASTER", "http://127.0.0.1:1",
                "KUBERNETES_REQUEST_RETRY_BACKOFFLIMIT", "0", "POD_NAMESPACE", "ops"), "--health-address=0", "--metrics-address=0",
                "--discovery-address=127.0.0.1:0", "--providers-config=" + file);
        assertEquals(1, r.exit(), r.err()); // nothing listens on port 1; the registry was built before that
        assertTrue(r.out().contains("\"providers\":\"[in-cluster]\""), r.out());
    }

    @Test
    void shouldWarnOnceWhenDiscoveryServesWithoutAToken() throws Exception {
        Result r = java(Map.of("KUBERNETES_MASTER", "http://127.0.0.1:1", "KUBERNETES_REQUEST_RETRY_BACKOFFLIMIT", "0",
                "POD_NAMESPACE", "ops"), "--health-address=0", "--metrics-address=0", "--discovery-address=127.0.0.1:0",
                "--discovery-allow-unauthenticated");
        assertEquals(1, r.exit(), r.err());
        List<String> warnings = r.out().lines().filter(l -> l.contains("WITHOUT AUTHENTICATION")).toList();
        assertEquals(1, warnings.size(), r.out());
        assertTrue(warnings.getFirst().contains("\"level\":\"warn\""), warnings.getFirst());
    }

    @Test
    void shouldNameTheDiscoveryFlagWhenItsPortIsTaken() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            String address = "127.0.0.1:" + taken.getLocalPort();
            Result r = java(Map.of("DISCOVERY_TOKEN", "t", "KUBERNETES_MASTER", "http://127.0.0.1:1",
                    "KUBERNETES_REQUEST_RETRY_BACKOFFLIMIT", "0", "POD_NAMESPACE", "ops"), "--health-address=0", "--metrics-address=0",
                    "--discovery-address=" + address);
            assertEquals(1, r.exit(), r.err());
            assertTrue(r.err().startsWith("egress-proxies-operator: cannot listen on --discovery-address " + address
                    + ": "), r.err());
            assertEquals(1, r.err().lines().count(), r.err());
        }
    }

    @Test
    void shouldNameTheMetricsFlagWhenItsPortIsTaken() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            String address = "127.0.0.1:" + taken.getLocalPort();
            Result r = java(Map.of("DISCOVERY_TOKEN", "t", "KUBERNETES_MASTER", "http://127.0.0.1:1",
                    "KUBERNETES_REQUEST_RETRY_BACKOFFLIMIT", "0", "POD_NAMESPACE", "ops"), "--health-address=0",
                    "--discovery-address=127.0.0.1:0", "--metrics-address=" + address);
            assertEquals(1, r.exit(), r.err());
            assertTrue(r.err().startsWith("egress-proxies-operator: cannot listen on --metrics-address " + address
                    + ": "), r.err());
            assertEquals(1, r.err().lines().count(), r.err());
        }
    }

    @Test
    void shouldCarryTheManifestEntriesUsersRelyOn() throws Exception {
        try (var jar = new java.util.jar.JarFile(JAR.toFile())) {
            var attrs = jar.getManifest().getMainAttributes();
            assertEquals(Main.class.getName(), attrs.getValue("Main-Class"));
            assertEquals("ALL-UNNAMED", attrs.getValue("Enable-Native-Access"));
            assertTrue(jar.getEntry("crd/proxies.crawl.example.com.yaml") != null, "CRDs ship in the jar");
        }
    }
}
