package com.example.crawl.egress.provider.gcp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.api.gax.core.NoCredentialsProvider;
import com.google.cloud.compute.v1.Instance;
import com.google.cloud.compute.v1.InstancesClient;
import com.google.cloud.compute.v1.InstancesSettings;
import com.sun.net.httpserver.HttpServer;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Guards the pom's exclusion of the gRPC stack from google-cloud-compute: the real client must
 * still build and make a REST call, here against a loopback JDK HttpServer.
 */
class ComputeClientClasspathTest {

    private HttpServer server;
    private final AtomicReference<String> path = new AtomicReference<>();

    @BeforeEach
    void start() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            path.set(exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath());
            byte[] body = "{\"name\":\"proxy-abc\",\"status\":\"RUNNING\"}".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    @Test
    void shouldGetAnInstanceOverRestWithoutGrpcOnTheClasspath() throws Exception {
        InstancesSettings settings = InstancesSettings.newBuilder()
                .setCredentialsProvider(NoCredentialsProvider.create())
                .setEndpoint("http://127.0.0.1:" + server.getAddress().getPort())
                .build();
        try (InstancesClient client = InstancesClient.create(settings)) {
            Instance instance = client.get("crawl-test", "europe-west4-a", "proxy-abc");
            assertEquals("RUNNING", instance.getStatus());
        }
        assertEquals("GET /compute/v1/projects/crawl-test/zones/europe-west4-a/instances/proxy-abc", path.get());
    }
}
