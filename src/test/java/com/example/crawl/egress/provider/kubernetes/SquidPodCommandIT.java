package com.example.crawl.egress.provider.kubernetes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.ItRequirements;
import com.example.crawl.egress.health.Squid;
import com.example.crawl.egress.provider.EgressPolicy;
import com.sun.net.httpserver.HttpServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the pod's container command, as {@link PodTemplate} writes it, against this machine's
 * real Squid: no cluster here can pull the image, but the command, the configuration it writes
 * and Squid's reading of it can be proven. Debian's Squid (5.7) stands in for the image's 6.6;
 * the configuration uses nothing newer than either.
 */
class SquidPodCommandIT {

    private static final Duration START_WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dir;
    private Process squid;
    private HttpServer target;
    private final Map<String, String> targetSaw = new ConcurrentHashMap<>();

    @BeforeEach
    void startTarget() throws IOException {
        target = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        target.createContext("/", exchange -> {
            exchange.getRequestHeaders().forEach((k, v) -> targetSaw.put(k.toLowerCase(), String.join(",", v)));
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        target.start();
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (squid != null) {
            squid.destroyForcibly();
            squid.waitFor(10, TimeUnit.SECONDS);
        }
        target.stop(0);
    }

    @Test
    void shouldListenOnTheProxysPortAndForwardWithoutNamingTheClient() throws Exception {
        int port = freePort();
        Path config = dir.resolve("egress-proxy.conf");

        start(port, config);

        assertEquals(PodTemplate.squidConfig(port, EgressPolicy.DEFAULT, "passwd") + "\n", Files.readString(config), "the command writes the env as is");
        assertEquals("HTTP/1.1 204 No Content", requestThrough(port, "http://127.0.0.1:" + target.getAddress().getPort() + "/"));
        assertFalse(targetSaw.containsKey("x-forwarded-for"), targetSaw.toString());
        assertFalse(targetSaw.containsKey("via"), targetSaw.toString());
    }

    @Test
    void shouldRefuseTheCacheManager() throws Exception {
        int port = freePort();

        start(port, dir.resolve("egress-proxy.conf"));

        assertTrue(requestThrough(port, "http://127.0.0.1:" + port + "/squid-internal-mgr/info").startsWith("HTTP/1.1 403"));
    }

    /** Starts the container command as the pod would, with Squid's directory on the PATH. */
    private void start(int port, Path config) throws IOException, InterruptedException {
        Path binary = Squid.binary().orElse(null);
        ItRequirements.require("squid", binary != null, "apt-get install squid");
        ProcessBuilder pb = new ProcessBuilder(PodTemplate.command(config.toString()));
        pb.environment().put(PodTemplate.CONFIG_ENV, PodTemplate.squidConfig(port, EgressPolicy.DEFAULT, "passwd"));
        pb.environment().put("PATH", binary.getParent() + ":" + pb.environment().getOrDefault("PATH", "/usr/bin:/bin"));
        squid = pb.redirectErrorStream(true).redirectOutput(dir.resolve("squid.out").toFile()).start();
        long end = System.nanoTime() + START_WAIT.toNanos();
        while (!accepts(port)) {
            if (squid.waitFor(25, TimeUnit.MILLISECONDS) || System.nanoTime() - end > 0) { // doubles as the poll interval
                throw new AssertionError("squid did not listen on " + port + ":\n" + Files.readString(dir.resolve("squid.out")));
            }
        }
    }

    /** Sends one absolute-URI GET through the proxy and returns the status line. */
    private static String requestThrough(int proxyPort, String url) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), proxyPort)) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(("GET " + url + " HTTP/1.1\r\nHost: " + url.split("/")[2] + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String status = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.ISO_8859_1)).readLine();
            assertNotNull(status, "the proxy closed without an answer");
            return status;
        }
    }

    private static boolean accepts(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
