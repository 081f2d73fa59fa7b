package com.example.crawl.egress.local;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.client.Config;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KubeconfigTest {

    @TempDir
    Path tmp;

    @Test
    void shouldCarryTheServerItsCertificateAndTheToken() throws Exception {
        ApiToken token = ApiToken.generate();
        String pem = LoopbackCertificate.generate().pem();

        Path file = Kubeconfig.write(tmp.resolve("kubeconfig"), "https://127.0.0.1:40123", pem, token);

        Config config = Config.fromKubeconfig(Files.readString(file));
        assertEquals("https://127.0.0.1:40123/", config.getMasterUrl());
        assertEquals(pem, new String(Base64.getDecoder().decode(config.getCaCertData()), StandardCharsets.US_ASCII));
        assertEquals(token.value(), config.getAutoOAuthToken()); // where fabric8 puts a kubeconfig user's token
    }

    @Test
    void shouldBeReadableByItsOwnerOnlyEvenWhenAnOlderOneWasNot() throws Exception {
        Path older = Files.writeString(tmp.resolve("kubeconfig"), "older");
        Files.setPosixFilePermissions(older, PosixFilePermissions.fromString("rw-r--r--"));

        Path file = Kubeconfig.write(older, "https://127.0.0.1:40123", LoopbackCertificate.generate().pem(),
                ApiToken.generate());

        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
    }
}
