package com.example.crawl.egress.local;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.client.Config;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KubeconfigTest {

    @TempDir
    Path tmp;

    @Test
    void shouldCarryTheTokenToWhoeverReadsIt() throws Exception {
        ApiToken token = ApiToken.generate();

        Path file = Kubeconfig.write(tmp.resolve("kubeconfig"), "http://127.0.0.1:40123", token);

        Config config = Config.fromKubeconfig(Files.readString(file));
        assertEquals("http://127.0.0.1:40123/", config.getMasterUrl());
        assertEquals(token.value(), config.getAutoOAuthToken()); // where fabric8 puts a kubeconfig user's token
    }

    @Test
    void shouldBeReadableByItsOwnerOnlyEvenWhenAnOlderOneWasNot() throws Exception {
        Path older = Files.writeString(tmp.resolve("kubeconfig"), "older");
        Files.setPosixFilePermissions(older, PosixFilePermissions.fromString("rw-r--r--"));

        Path file = Kubeconfig.write(older, "http://127.0.0.1:40123", ApiToken.generate());

        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
    }
}
