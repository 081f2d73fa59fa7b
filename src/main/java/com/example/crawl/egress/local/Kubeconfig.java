package com.example.crawl.egress.local;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Writes a kubeconfig that points {@code kubectl} at the embedded API server (plain HTTP, no credentials). */
final class Kubeconfig {

    static final String CONTEXT = "egress-proxies-local";

    private Kubeconfig() {
    }

    /** Writes it to {@code file} (replacing an older one) and returns the file. */
    static Path write(Path file, String serverUrl) throws IOException {
        String yaml = """
                # Written by egress-proxies-operator --local for its embedded API server; rewritten at every start.
                apiVersion: v1
                kind: Config
                clusters:
                - name: %1$s
                  cluster:
                    server: %2$s
                users:
                - name: %1$s
                  user: {}
                contexts:
                - name: %1$s
                  context:
                    cluster: %1$s
                    user: %1$s
                    namespace: default
                current-context: %1$s
                """.formatted(CONTEXT, serverUrl);
        Files.writeString(file, yaml, StandardCharsets.UTF_8);
        return file;
    }
}
