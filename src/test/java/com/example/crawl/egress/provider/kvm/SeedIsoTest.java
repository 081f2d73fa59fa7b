package com.example.crawl.egress.provider.kvm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.KvmSpec;
import com.example.crawl.egress.api.ProxyCredentials;
import com.example.crawl.egress.provider.CreateRequest;
import com.example.crawl.egress.provider.EgressPolicy;
import com.example.crawl.egress.provider.OperatorCloudInit;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SeedIsoTest {

    static final Map<String, String> PASSWORD_FILE = Map.of("passwd", "crawler:$6$saltsaltsaltsalt$hash\n");
    static final CreateRequest REQUEST = new CreateRequest("proxy-abcdefghijklmnop", "uid-1", "crawlers", "kvm-1",
            3128, "#cloud-config\npackages: [squid]\n", new ProxyCredentials("crawler", "s3cret-pass"), null,
            new KvmSpec("hv1", new KvmSpec.Image("https://img.test/a.qcow2", null), null, null, null, null, null, null),
            null);

    @Test
    void shouldCarryTheMergedUserDataAndTheInstanceMetaData() {
        IsoReader iso = new IsoReader(SeedIso.build(REQUEST, EgressPolicy.DEFAULT, PASSWORD_FILE));
        Map<String, String> files = iso.rockRidgeFiles();

        assertEquals("cidata", iso.volumeId(iso.descriptor(1)));
        assertEquals(OperatorCloudInit.merge(REQUEST.cloudInit(), PASSWORD_FILE, EgressPolicy.DEFAULT, 3128),
                files.get("user-data"));
        assertEquals("instance-id: proxy-abcdefghijklmnop\nlocal-hostname: proxy-abcdefghijklmnop\n",
                files.get("meta-data"));
        assertEquals(files, iso.jolietFiles());
    }

    @Test
    void shouldIncludeTheOperatorsPartButNeverThePassword() {
        String userData = SeedIso.userData(REQUEST, EgressPolicy.DEFAULT, PASSWORD_FILE);

        assertTrue(userData.contains("Content-Type: multipart/mixed"), userData);
        String decoded = decodedParts(userData);
        assertTrue(decoded.contains("packages: [squid]"), decoded);
        assertTrue(decoded.contains("crawler:$6$saltsaltsaltsalt$hash"), decoded);
        assertTrue(decoded.contains("http_access deny all"), decoded);
        assertTrue(!decoded.contains("s3cret-pass") && !userData.contains("s3cret-pass"));
    }

    /** The bodies of the MIME parts, base64 decoded, one after the other. */
    private static String decodedParts(String mime) {
        StringBuilder out = new StringBuilder();
        for (String chunk : mime.split("\n--[^\n]+\n")) {
            int blank = chunk.indexOf("\n\n");
            if (chunk.contains("Content-Transfer-Encoding: base64") && blank > 0) {
                out.append(new String(Base64.getMimeDecoder().decode(chunk.substring(blank + 2).strip()),
                        StandardCharsets.UTF_8));
            }
        }
        return out.toString();
    }

    @Test
    void shouldWriteTheSameSeedForTheSameInputs() {
        assertArrayEquals(SeedIso.build(REQUEST, EgressPolicy.DEFAULT, PASSWORD_FILE),
                SeedIso.build(REQUEST, EgressPolicy.DEFAULT, PASSWORD_FILE));
    }

    @Test
    void shouldRefuseAHostnameThatWouldNeedQuoting() {
        assertThrows(IllegalArgumentException.class, () -> SeedIso.metaData("proxy-a\ninstance-id: other"));
        assertThrows(IllegalArgumentException.class, () -> SeedIso.metaData("Proxy_A"));
    }
}
