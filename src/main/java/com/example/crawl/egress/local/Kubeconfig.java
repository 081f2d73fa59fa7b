package com.example.crawl.egress.local;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;

/**
 * Writes a kubeconfig that points {@code kubectl} at the embedded API server: HTTPS on loopback,
 * trusting only the server's own certificate, with the {@link ApiToken} as the user's bearer token
 * (kubectl sends it over TLS only). The file is {@code 0600} (in the {@code 0700} state
 * directory): whoever can read it can use the API.
 */
final class Kubeconfig {

    static final String CONTEXT = "egress-proxies-local";
    /**
     * The namespace kubectl works in, where the samples are, and the operator's own: where local
     * mode keeps the lease state and reads the discovery clients' Secrets.
     */
    static final String NAMESPACE = "default";

    private Kubeconfig() {
    }

    /** Writes it to {@code file}, replacing an older one, readable by its owner only; returns the file. */
    static Path write(Path file, String serverUrl, String certificatePem, ApiToken token) throws IOException {
        String yaml = """
                # Written by egress-proxies-operator --local for its embedded API server; rewritten at every start.
                apiVersion: v1
                kind: Config
                clusters:
                - name: %1$s
                  cluster:
                    server: %2$s
                    certificate-authority-data: %4$s
                users:
                - name: %1$s
                  user:
                    token: %3$s
                contexts:
                - name: %1$s
                  context:
                    cluster: %1$s
                    user: %1$s
                    namespace: %5$s
                current-context: %1$s
                """.formatted(CONTEXT, serverUrl, token.value(),
                Base64.getEncoder().encodeToString(certificatePem.getBytes(StandardCharsets.US_ASCII)), NAMESPACE);
        Files.deleteIfExists(file); // a file from before may have looser permissions; this one starts private
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(file, yaml, StandardCharsets.UTF_8);
        return file;
    }
}
