package com.example.crawl.egress.provider.kubernetes;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/**
 * An API server that never answers: a loopback listener that accepts no connection, so the
 * kernel completes the TCP handshake from its backlog and the request then waits for nothing.
 * Also the address of one that is not there at all ({@link #refusingClient()}).
 */
final class BlackHole implements AutoCloseable {

    private final ServerSocket socket;
    private final KubernetesClient client;

    private BlackHole(ServerSocket socket) {
        this.socket = socket;
        this.client = clientOf(socket.getLocalPort());
    }

    static BlackHole open() throws IOException {
        return new BlackHole(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()));
    }

    /** A client of the black hole; closed with it. */
    KubernetesClient client() {
        return client;
    }

    /** A client of a loopback port nothing listens on: every connection is refused. Close it after use. */
    static KubernetesClient refusingClient() {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return clientOf(port);
    }

    @Override
    public void close() throws IOException {
        client.close();
        socket.close();
    }

    private static KubernetesClient clientOf(int port) {
        return new KubernetesClientBuilder().withConfig(new ConfigBuilder().withMasterUrl("http://127.0.0.1:" + port)
                .withRequestRetryBackoffLimit(0).build()).build();
    }
}
