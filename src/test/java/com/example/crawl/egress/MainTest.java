package com.example.crawl.egress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import com.example.crawl.egress.log.LogFormat;
import com.example.crawl.egress.log.LogSetup;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;
import org.junit.jupiter.api.io.TempDir;

class MainTest {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    /** Main points process-wide logging at this test's buffer; give later tests the default back. */
    @AfterEach
    void restoreLogging() {
        LogSetup.configure(LogFormat.JSON, Level.INFO);
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
    void shouldExitTwoWithOneLineNamingABadFlag() {
        assertEquals(2, run(Map.of("DISCOVERY_TOKEN", "t"), "--max-concurrent-reconciles=-1"));
        assertEquals("egress-proxies-operator: invalid value \"-1\" for flag --max-concurrent-reconciles: "
                + "must be between 1 and 256\n", err());
    }

    @Test
    void shouldExitTwoWithOneLineForABrokenProvidersConfig(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("providers.yaml");
        Files.writeString(file, "providers: [{name: gcp-eu, type: gcp}]\n");
        assertEquals(2, run(Map.of("DISCOVERY_TOKEN", "t"), "--providers-config=" + file));
        assertEquals("egress-proxies-operator: providers config: providers[0] (gcp-eu).gcp.project: required\n", err());
    }

    @Test
    void shouldBuildAKubernetesProviderFromTheProvidersConfig(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("providers.yaml");
        Files.writeString(file, "providers: [{name: in-cluster, type: kubernetes, kubernetes: {namespace: proxies}}]\n");
        // --local stops right after the registry is built and the configuration logged.
        assertEquals(1, run(Map.of("DISCOVERY_TOKEN", "t"), "--providers-config=" + file, "--local"));
        String stdout = out.toString(StandardCharsets.UTF_8);
        assertTrue(stdout.contains("\"providers\":\"[in-cluster]\""), stdout);
    }

    @Test
    void shouldExitTwoNamingTheProviderTypesThisBuildHas(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("providers.yaml");
        Files.writeString(file, "providers: [{name: gcp-eu, type: gcp, gcp: {project: crawl-eu}}]\n");
        assertEquals(2, run(Map.of("DISCOVERY_TOKEN", "t"), "--providers-config=" + file));
        assertEquals("egress-proxies-operator: providers config: providers[0] (gcp-eu).type: no provider of type "
                + "\"gcp\" in this build (available: kubernetes)\n", err());
    }

    @Test
    void shouldLogConfigurationAsJsonAndSayPlainlyThatLocalModeIsNotBuiltYet() {
        assertEquals(1, run(Map.of("DISCOVERY_TOKEN", "t0ken-value"), "--proxy-namespace=crawl", "--local"));
        String stdout = out.toString(StandardCharsets.UTF_8);
        assertTrue(stdout.startsWith("{\"ts\":"), stdout);
        assertTrue(stdout.contains("\"level\":\"info\""), stdout);
        assertTrue(stdout.contains("\"msg\":\"Configuration loaded\""), stdout);
        assertTrue(stdout.contains("\"proxyNamespace\":\"crawl\""), stdout);
        assertTrue(!stdout.contains("t0ken-value") && !err().contains("t0ken-value"), "the token is never printed");
        assertEquals(1, err().lines().count(), err());
        assertTrue(err().contains("--local is not built yet"), err());
    }
}
