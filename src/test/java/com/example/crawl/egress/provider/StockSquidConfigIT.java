package com.example.crawl.egress.provider;

import static com.example.crawl.egress.lab.NetnsLab.LOOPBACK;
import static com.example.crawl.egress.lab.NetnsLab.METADATA;
import static com.example.crawl.egress.lab.NetnsLab.PRIVATE;
import static com.example.crawl.egress.lab.NetnsLab.PUBLIC;
import static com.example.crawl.egress.lab.NetnsLab.answerFrom;
import static com.example.crawl.egress.lab.NetnsLab.url;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.ItRequirements;
import com.example.crawl.egress.api.LeaseCredentials;
import com.example.crawl.egress.api.ProxyCredentials;
import com.example.crawl.egress.lab.LabSquid;
import com.example.crawl.egress.lab.NetnsLab;
import com.example.crawl.egress.lab.ProxyReply;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a VM's Squid does with the operator's snippet ({@link OperatorCloudInit#snippet}) included
 * by the distribution's own {@code squid.conf}, the one a gcp or kvm VM that installs Squid from
 * its packages runs: this machine's Debian package's file, with only the include directory and
 * the process's own files moved to a test directory. In a network namespace ({@link NetnsLab}):
 * credentials are demanded, internal destinations refused, the internet reached, and a
 * {@code CONNECT} port the policy allows besides 443 gets through the stock lists.
 */
class StockSquidConfigIT {

    private static final Path STOCK = Path.of("/etc/squid/squid.conf");
    private static final String STOCK_INCLUDE = "include /etc/squid/conf.d/*.conf";
    private static final int PORT = 3128;
    private static final ProxyCredentials CRAWLER = ProxyCredentials.generate(new SecureRandom());
    /** CONNECT to 443 and 22: 22 is in neither of the stock SSL_ports and Safe_ports. */
    private static final EgressPolicy POLICY = new EgressPolicy(List.of(), List.of("443", "22"), List.of());

    @TempDir
    static Path dir;
    private static NetnsLab lab;
    private static LabSquid squid;

    @BeforeAll
    static void start() throws Exception {
        ItRequirements.require("the squid package's /etc/squid/squid.conf", Files.isRegularFile(STOCK),
                "apt-get install squid");
        String stock = Files.readString(STOCK);
        assertTrue(stock.lines().anyMatch(STOCK_INCLUDE::equals),
                "the stock configuration includes conf.d, where the operator's snippet goes");
        lab = NetnsLab.create();
        // Squid's workers run as proxy and open the password file and cache.log by absolute path.
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
        Path run = Files.createDirectory(dir.resolve("run"));
        Path confd = Files.createDirectory(dir.resolve("conf.d"));
        UserPrincipal proxy = run.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("proxy");
        for (Map.Entry<String, String> file : SquidAuth.files(CRAWLER, new SecureRandom()).entrySet()) {
            Files.setOwner(Files.writeString(run.resolve(file.getKey()), file.getValue()), proxy);
        }
        Files.setOwner(run, proxy);
        Files.writeString(confd.resolve("00-egress-proxy.conf"),
                String.join("\n", OperatorCloudInit.snippet(POLICY, PORT, run.toString())) + "\n");
        Path config = Files.writeString(dir.resolve("squid.conf"), stock.replace(STOCK_INCLUDE, "include " + confd + "/*.conf")
                + "\npid_filename " + run.resolve("squid.pid") + "\ncache_log " + run.resolve("cache.log")
                + "\naccess_log none\n");
        squid = lab.startSquid(config, run, PORT);
    }

    @AfterAll
    static void stop() {
        if (lab != null) {
            lab.close();
        }
    }

    @Test
    void shouldDemandCredentialsAndKeepInternalDestinationsOut() {
        assertEquals(407, lab.request(squid, url(PUBLIC, 80)).status());
        ProxyReply internet = lab.request(squid, url(PUBLIC, 80), CRAWLER);
        assertEquals(200, internet.status(), internet + "\n" + squid.output());
        assertEquals(answerFrom(PUBLIC, 80), internet.body());
        for (String address : List.of(LOOPBACK, METADATA, PRIVATE)) {
            assertEquals(403, lab.request(squid, url(address, 80), CRAWLER).status(), address);
        }
    }

    @Test
    void shouldTakeALeasesCredentialsUntilItsExpiryOnly() {
        Instant now = Instant.now();
        ProxyCredentials lease = LeaseCredentials.mint(CRAWLER, "Lease_Digest-Mixed-Case", now, now.plusSeconds(60));
        ProxyCredentials ended = LeaseCredentials.mint(CRAWLER, "Lease_Digest-Mixed-Case", now.minusSeconds(60),
                now.minusSeconds(1));

        ProxyReply crawl = lab.request(squid, url(PUBLIC, 80), lease);
        assertEquals(200, crawl.status(), "a VM's Squid checks a lease's credentials itself: " + crawl + "\n"
                + squid.output());
        assertEquals(407, lab.request(squid, url(PUBLIC, 80), ended).status(), "and ends them at the lease's expiry");
    }

    @Test
    void shouldTunnelToEveryConnectPortOfThePolicyAndNoOther() {
        assertEquals(200, lab.tunnel(squid, url(PUBLIC, 443), CRAWLER).connectStatus());
        ProxyReply ssh = lab.tunnel(squid, url(PUBLIC, 22), CRAWLER);
        assertEquals(200, ssh.connectStatus(), "22 is a connect port of the policy: " + ssh + "\n" + squid.output());
        assertEquals(403, lab.tunnel(squid, url(PUBLIC, 80), CRAWLER).connectStatus(), "80 is not");
        assertEquals(403, lab.tunnel(squid, url(PRIVATE, 443), CRAWLER).connectStatus());
    }
}
