package com.example.crawl.egress.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.config.ProviderConfig.Gcp;
import com.example.crawl.egress.config.ProviderConfig.Kubernetes;
import com.example.crawl.egress.config.ProviderConfig.Kvm;
import com.example.crawl.egress.config.ProviderConfig.Local;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ProvidersConfigTest {

    private static final String KVM_HOST = "hosts: [{name: h, address: x, user: u, privateKeyFile: k, knownHostsFile: kh}]";

    private static final String FULL = """
            providers:
              - name: kubernetes
                type: kubernetes
              - name: gcp-eu
                type: gcp
                gcp:
                  project: crawl-prod
                  credentialsFile: /var/run/gcp/key.json
              - name: kvm-home
                type: kvm
                kvm:
                  pool: images
                  hosts:
                    - name: beelink
                      address: 192.0.2.10
                      user: virt
                      privateKeyFile: /etc/ssh-keys/id_ed25519
                      knownHostsFile: /etc/ssh-keys/known_hosts
                    - name: nested
                      address: 192.0.2.11
                      user: virt
                      privateKeyFile: /etc/ssh-keys/id_ed25519
                      knownHostsFile: /etc/ssh-keys/known_hosts
                      accelerator: tcg
              - name: local
                type: local
                local: {stateDir: /tmp/px}
            """;

    @Test
    void shouldParseEveryProviderTypeIntoItsRecord() throws ConfigException {
        ProvidersConfig c = ProvidersConfig.parse(FULL);
        assertEquals(4, c.providers().size());
        Kubernetes k = assertInstanceOf(Kubernetes.class, c.find("kubernetes").orElseThrow().settings());
        assertEquals(Kubernetes.DEFAULT_IMAGE, k.image());
        Gcp g = assertInstanceOf(Gcp.class, c.find("gcp-eu").orElseThrow().settings());
        assertEquals("crawl-prod", g.project());
        assertEquals(Optional.of(Path.of("/var/run/gcp/key.json")), g.credentialsFile());
        Kvm v = assertInstanceOf(Kvm.class, c.find("kvm-home").orElseThrow().settings());
        assertEquals("images", v.pool());
        assertEquals(22, v.hosts().get(0).port());
        assertEquals("/var/run/libvirt/libvirt-sock", v.hosts().get(0).socket());
        assertEquals(ProviderConfig.Accelerator.auto, v.hosts().get(0).accelerator());
        assertEquals(ProviderConfig.Accelerator.tcg, v.hosts().get(1).accelerator());
        assertInstanceOf(Local.class, c.find("local").orElseThrow().settings());
        assertEquals("kvm", c.find("kvm-home").orElseThrow().type());
    }

    @Test
    void shouldDeleteUnusedKvmImagesAfterAWeekUnlessToldOtherwise() throws ConfigException {
        assertEquals(Optional.of(Duration.ofDays(7)), kvm("").deleteUnusedImagesAfter());
        assertEquals(Optional.of(Duration.ofMinutes(90)), kvm("deleteUnusedImagesAfter: 1h30m, ").deleteUnusedImagesAfter());
        assertEquals(Optional.empty(), kvm("deleteUnusedImagesAfter: never, ").deleteUnusedImagesAfter(), "off");
    }

    private static Kvm kvm(String fields) throws ConfigException {
        return (Kvm) ProvidersConfig.parse("providers: [{name: a, type: kvm, kvm: {" + fields + KVM_HOST + "}}]")
                .providers().getFirst().settings();
    }

    @Test
    void shouldTreatAnEmptyFileAsNoProviders() throws ConfigException {
        assertTrue(ProvidersConfig.parse("").providers().isEmpty());
        assertTrue(ProvidersConfig.parse("providers: []").providers().isEmpty());
    }

    @Test
    void shouldLoadFromAFileAndNameAnUnreadableOne(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("providers.yaml");
        Files.writeString(file, FULL);
        assertEquals(4, ProvidersConfig.load(file).providers().size());
        String msg = assertThrows(ConfigException.class, () -> ProvidersConfig.load(dir.resolve("nope.yaml"))).getMessage();
        assertTrue(msg.startsWith("providers config: cannot read " + dir.resolve("nope.yaml")), msg);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "providers: [{type: gcp, gcp: {project: p}}] | providers config: providers[0].name: required",
        "providers: [{name: a, type: aws}] | providers config: providers[0] (a).type: unknown type \"aws\" (allowed: gcp, kubernetes, kvm, local)",
        "providers: [{name: a, type: gcp}] | providers config: providers[0] (a).gcp.project: required",
        "providers: [{name: a, type: gcp, gcp: {project: p, zone: z}}] | providers config: providers[0] (a).gcp.zone: unknown field (allowed: credentialsFile, endpoint, project)",
        "providers: [{name: a, type: gcp, gcp: {project: p}, kvm: {}}] | providers config: providers[0] (a).kvm: block does not match type gcp",
        "providers: [{name: a, type: kubernetes}, {name: a, type: kubernetes}] | providers config: providers[1]: duplicate name \"a\"",
        "providers: [{name: a, type: kvm, kvm: {hosts: []}}] | providers config: providers[0] (a).kvm.hosts: at least one host is required",
        "providers: [{name: a, type: kvm, kvm: {hosts: [{name: h, address: x, user: u, privateKeyFile: k, knownHostsFile: kh, accelerator: hvf}]}}] | providers config: providers[0] (a).kvm.hosts[0].accelerator: must be auto, kvm or tcg, not \"hvf\"",
        "providers: [{name: a, type: kvm, kvm: {network: br0, hosts: []}}] | providers config: providers[0] (a).kvm.network: unknown field (allowed: deleteUnusedImagesAfter, hosts, pool)",
        "providers: [{name: a, type: kvm, kvm: {hosts: [{name: h, address: x, user: u, privateKeyFile: k, knownHostsFile: kh, port: 70000}]}}] | providers config: providers[0] (a).kvm.hosts[0].port: must be an integer between 1 and 65535",
        "providers: [{name: a, type: kvm, kvm: {deleteUnusedImagesAfter: 7d, " + KVM_HOST + "}}] | providers config: providers[0] (a).kvm.deleteUnusedImagesAfter: must be a duration above zero such as 168h (hours are the largest unit), or never to keep every image, not \"7d\"",
        "providers: [{name: a, type: kvm, kvm: {deleteUnusedImagesAfter: 0s, " + KVM_HOST + "}}] | providers config: providers[0] (a).kvm.deleteUnusedImagesAfter: must be a duration above zero such as 168h (hours are the largest unit), or never to keep every image, not \"0s\"",
        "providers: [{name: a, type: kvm, kvm: {deleteUnusedImagesAfter: 0, " + KVM_HOST + "}}] | providers config: providers[0] (a).kvm.deleteUnusedImagesAfter: must be a duration above zero such as 168h (hours are the largest unit), or never to keep every image, not 0",
        "providers: [{name: a, type: kvm, kvm: {deleteUnusedImagesAfter: -1h, " + KVM_HOST + "}}] | providers config: providers[0] (a).kvm.deleteUnusedImagesAfter: must be a duration above zero such as 168h (hours are the largest unit), or never to keep every image, not \"-1h\"",
        "providers: [{name: a, type: kvm, kvm: {deleteUnusedImagesAfter: false, " + KVM_HOST + "}}] | providers config: providers[0] (a).kvm.deleteUnusedImagesAfter: must be a duration above zero such as 168h (hours are the largest unit), or never to keep every image, not false",
        "providers: [{name: 7, type: kubernetes}] | providers config: providers[0].name: must be a string",
        "providers: {name: a} | providers config: providers: must be a list",
        "provider: [] | providers config: provider: unknown field (allowed: providers)",
    })
    void shouldNameEntryAndFieldOfEveryMistake(String yaml, String message) {
        assertEquals(message, assertThrows(ConfigException.class, () -> ProvidersConfig.parse(yaml)).getMessage());
    }

    @Test
    void shouldReportBrokenYamlAsOneLine() {
        String msg = assertThrows(ConfigException.class, () -> ProvidersConfig.parse("providers: [")).getMessage();
        assertTrue(msg.startsWith("providers config: not valid YAML"), msg);
    }
}
