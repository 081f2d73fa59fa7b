package com.example.crawl.egress.provider.kubernetes;

import static com.example.crawl.egress.lab.NetnsLab.CGNAT;
import static com.example.crawl.egress.lab.NetnsLab.LOOPBACK;
import static com.example.crawl.egress.lab.NetnsLab.METADATA;
import static com.example.crawl.egress.lab.NetnsLab.PRIVATE;
import static com.example.crawl.egress.lab.NetnsLab.PUBLIC;
import static com.example.crawl.egress.lab.NetnsLab.UNIQUE_LOCAL;
import static com.example.crawl.egress.lab.NetnsLab.UNSERVED;
import static com.example.crawl.egress.lab.NetnsLab.answerFrom;
import static com.example.crawl.egress.lab.NetnsLab.url;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.LeaseCredentials;
import com.example.crawl.egress.api.ProxyCredentials;
import com.example.crawl.egress.lab.Hardening;
import com.example.crawl.egress.lab.LabSquid;
import com.example.crawl.egress.lab.NetnsLab;
import com.example.crawl.egress.lab.ProxyReply;
import com.example.crawl.egress.provider.EgressPolicy;
import com.example.crawl.egress.provider.SquidAuth;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pod's container command and configuration, as {@link PodTemplate} writes them, run by this
 * machine's real Squid the way the pod spec runs it: as uid 13 with no capabilities, no privilege
 * escalation, a read-only root and only {@code /tmp} (the emptyDir) and {@code /dev/shm} writable,
 * inside a network namespace of its own ({@link NetnsLab}) where every address the rules refuse
 * has a server that would answer. No cluster here can pull the image; Debian's Squid (5.7)
 * stands in for the image's 6.6, and the configuration uses nothing newer than either.
 */
class SquidPodCommandIT {

    private static final int PORT = 3128;
    private static final ProxyCredentials CRAWLER = ProxyCredentials.generate(new SecureRandom());
    private static final ProxyCredentials WRONG = new ProxyCredentials(CRAWLER.username(), "not-the-password");
    /** The cluster's Service CIDR in this test: the unserved public address stands for it. */
    private static final EgressPolicy POLICY = new EgressPolicy(List.of(UNSERVED + "/32"), List.of("443"), List.of());
    /** Where the lab stages the test's files, as the Secret volume would mount the auth files. */
    private static final String AUTH_DIR = Hardening.pod().stage();

    @TempDir
    static Path dir;
    private static NetnsLab lab;
    private static LabSquid squid;
    private static String config;

    @BeforeAll
    static void start() throws Exception {
        lab = NetnsLab.create();
        for (Map.Entry<String, String> file : SquidAuth.files(CRAWLER, new SecureRandom()).entrySet()) {
            Files.writeString(dir.resolve(file.getKey()), file.getValue());
        }
        config = PodTemplate.squidConfig(PORT, POLICY, AUTH_DIR, Optional.empty());
        squid = lab.startProxy(PodTemplate.command(PodTemplate.CONFIG_FILE), Map.of(PodTemplate.CONFIG_ENV, config),
                dir, PORT, Hardening.pod());
    }

    @AfterAll
    static void stop() {
        if (lab != null) {
            lab.close();
        }
    }

    @Test
    void shouldRunOnTheConfigurationTheCommandWritesFromTheEnvironment() throws Exception {
        assertEquals(config + "\n", Files.readString(squid.view(PodTemplate.CONFIG_FILE)), "written as is");
    }

    @Test
    void shouldDemandTheProxysCredentials() {
        ProxyReply anonymous = lab.request(squid, url(PUBLIC, 80));
        assertEquals(407, anonymous.status(), anonymous + "\n" + squid.output());
        assertEquals(407, lab.request(squid, url(PUBLIC, 80), WRONG).status());
        assertEquals(407, lab.tunnel(squid, url(PUBLIC, 443)).connectStatus());

        ProxyReply crawl = lab.request(squid, url(PUBLIC, 80), CRAWLER);
        assertEquals(200, crawl.status(), crawl + "\n" + squid.output());
        assertEquals(answerFrom(PUBLIC, 80), crawl.body());
        ProxyReply https = lab.tunnel(squid, url(PUBLIC, 443), CRAWLER);
        assertEquals(200, https.connectStatus(), https.toString());
        assertEquals(answerFrom(PUBLIC, 443), https.body());
    }

    @Test
    void shouldTakeALeasesCredentialsUntilItsExpiryAndNoForgery() {
        Instant now = Instant.now();
        ProxyCredentials lease = LeaseCredentials.mint(CRAWLER, "lease-digest-AAAAAAAAAA", now, now.plusSeconds(60));
        ProxyCredentials ended = LeaseCredentials.mint(CRAWLER, "lease-digest-BBBBBBBBBB", now.minusSeconds(60),
                now.minusSeconds(1));
        ProxyCredentials otherProxys = LeaseCredentials.mint(ProxyCredentials.generate(new SecureRandom()),
                "lease-digest-AAAAAAAAAA", now, now.plusSeconds(60));
        ProxyCredentials longer = new ProxyCredentials(lease.username().replaceFirst("\\.(\\d+)\\.lease-digest",
                "." + now.plusSeconds(3600).toEpochMilli() + ".lease-digest"), lease.password());

        ProxyReply crawl = lab.request(squid, url(PUBLIC, 80), lease);
        assertEquals(200, crawl.status(), crawl + "\n" + squid.output());
        assertEquals(200, lab.tunnel(squid, url(PUBLIC, 443), lease).connectStatus());
        assertEquals(407, lab.request(squid, url(PUBLIC, 80), ended).status(), "past its expiry");
        assertEquals(407, lab.request(squid, url(PUBLIC, 80), otherProxys).status(), "made with another proxy's key");
        assertEquals(407, lab.request(squid, url(PUBLIC, 80), longer).status(), "its expiry moved on");
        assertEquals(403, lab.request(squid, url(METADATA, 80), lease).status(), "and the inside stays closed");
    }

    @Test
    void shouldRefuseEveryInsideDestinationEvenWithCredentials() {
        for (String address : List.of(LOOPBACK, METADATA, PRIVATE, CGNAT, UNIQUE_LOCAL, UNSERVED)) {
            ProxyReply denied = lab.request(squid, url(address, 80), CRAWLER);
            assertEquals(403, denied.status(), address + ": " + denied);
            assertEquals("ERR_ACCESS_DENIED 0", denied.squidError(), address + ": " + denied);
        }
        assertEquals(403, lab.request(squid, "http://[::ffff:127.0.0.1]:80/", CRAWLER).status(), "IPv4-mapped loopback");
        assertEquals(403, lab.request(squid, "http://2130706433:80/", CRAWLER).status(), "loopback as one number");
    }

    @Test
    void shouldTunnelOnlyToTheConfiguredPorts() {
        ProxyReply ssh = lab.tunnel(squid, url(PUBLIC, 22), CRAWLER);

        assertEquals(403, ssh.connectStatus(), ssh.toString());
        assertEquals(403, lab.tunnel(squid, url(METADATA, 443), CRAWLER).connectStatus(), "an inside address on 443");
    }

    @Test
    void shouldRefuseTheCacheManager() throws Exception {
        String host = Files.readString(Path.of("/proc/sys/kernel/hostname")).strip(); // Squid's own name here
        ProxyReply proxied = lab.request(squid, "http://" + host + ":" + PORT + "/squid-internal-mgr/info", CRAWLER);

        assertEquals(403, proxied.status(), proxied.toString());
        assertEquals(403, lab.direct("http://127.0.0.1:" + PORT + "/squid-internal-mgr/info").status());
    }

    @Test
    void shouldForwardWithoutNamingTheClientOrItself() {
        ProxyReply headers = lab.request(squid, url(PUBLIC, 80) + NetnsLab.HEADERS_PATH.substring(1), CRAWLER);

        assertEquals(200, headers.status(), headers.toString());
        assertFalse(headers.body().contains("via"), headers.body());
        assertFalse(headers.body().contains("x-forwarded-for"), headers.body());
        assertFalse(headers.body().contains("proxy-authorization"), "credentials stay with the proxy: " + headers.body());
        assertTrue(headers.body().contains("host"), headers.body());
    }
}
