package com.example.crawl.egress.provider.local;

import static com.example.crawl.egress.lab.NetnsLab.CGNAT;
import static com.example.crawl.egress.lab.NetnsLab.LOOPBACK;
import static com.example.crawl.egress.lab.NetnsLab.METADATA;
import static com.example.crawl.egress.lab.NetnsLab.PRIVATE;
import static com.example.crawl.egress.lab.NetnsLab.PUBLIC;
import static com.example.crawl.egress.lab.NetnsLab.UNIQUE_LOCAL;
import static com.example.crawl.egress.lab.NetnsLab.answerFrom;
import static com.example.crawl.egress.lab.NetnsLab.url;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.example.crawl.egress.api.ProxyCredentials;
import com.example.crawl.egress.lab.LabSquid;
import com.example.crawl.egress.lab.NetnsLab;
import com.example.crawl.egress.lab.ProxyReply;
import com.example.crawl.egress.provider.EgressPolicy;
import com.example.crawl.egress.provider.SquidAuth;
import com.example.crawl.egress.provider.SquidAccessRules;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
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
 * Local mode's Squid configuration ({@link InstanceDir#squidConfig}) in a network namespace of its
 * own ({@link NetnsLab}), started as the local provider starts it when the operator runs as root:
 * in its run directory, owned by the user Squid switches to. With local mode's one exception (its
 * probe target, here the lab's loopback server on port 80), credentials are demanded, the exception
 * is reached, and nothing else inside is: not another loopback port, not metadata, not a private
 * or CGNAT or unique-local address.
 */
class LocalSquidConfigIT {

    private static final int PORT = 3128;
    private static final ProxyCredentials CRAWLER = ProxyCredentials.generate(new SecureRandom());
    private static final EgressPolicy LOCAL = EgressPolicy.DEFAULT.allowing(new EgressPolicy.Destination(LOOPBACK, 80));

    @TempDir
    static Path dir;
    private static NetnsLab lab;
    private static LabSquid squid;

    @BeforeAll
    static void start() throws Exception {
        lab = NetnsLab.create();
        InstanceDir.Facts facts = new InstanceDir.Facts("proxy-lab", "uid-1", "crawl", "lab", LOOPBACK, PORT,
                Instant.parse("2026-11-30T12:00:00Z"), 0);
        Path config = Files.writeString(dir.resolve("squid.conf"), InstanceDir.squidConfig(facts, LOCAL,
                SquidAuth.PERL, Optional.of("proxy")));
        Path run = Files.createDirectory(dir.resolve("run"));
        UserPrincipal proxy = run.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("proxy");
        for (Map.Entry<String, String> file : SquidAuth.files(CRAWLER, new SecureRandom()).entrySet()) {
            Files.setOwner(Files.writeString(run.resolve(file.getKey()), file.getValue()), proxy);
        }
        Files.setOwner(run, proxy);
        squid = lab.startSquid(config, run, PORT);
    }

    @AfterAll
    static void stop() {
        if (lab != null) {
            lab.close();
        }
    }

    @Test
    void shouldDemandCredentialsAndReachItsProbeTarget() {
        assertEquals(407, lab.request(squid, url(LOOPBACK, 80)).status());

        ProxyReply target = lab.request(squid, url(LOOPBACK, 80), CRAWLER);

        assertEquals(200, target.status(), target + "\n" + squid.output());
        assertEquals(answerFrom(LOOPBACK, 80), target.body());
    }

    @Test
    void shouldReachTheInternetButNothingElseInside() {
        assertEquals(200, lab.request(squid, url(PUBLIC, 80), CRAWLER).status());
        assertEquals(403, lab.request(squid, url(LOOPBACK, 443), CRAWLER).status(), "another loopback port");
        for (String address : List.of(METADATA, PRIVATE, CGNAT, UNIQUE_LOCAL)) {
            assertEquals(403, lab.request(squid, url(address, 80), CRAWLER).status(), address);
        }
        assertEquals(403, lab.tunnel(squid, url(LOOPBACK, 80), CRAWLER).connectStatus(), "no tunnel to the exception");
        assertEquals(403, lab.tunnel(squid, url(PUBLIC, 22), CRAWLER).connectStatus());
    }
}
