package com.example.crawl.egress.provider.kvm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.KvmSpec;
import com.example.crawl.egress.provider.ProviderException;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link ImageDownload} against a JDK HTTP server on loopback. */
class ImageDownloadTest {

    private static final byte[] QCOW2 = {'Q', 'F', 'I', (byte) 0xfb, 0, 0, 0, 3, 1, 2, 3};

    private HttpServer http;
    private ImageDownload download;

    @BeforeEach
    void start() throws IOException {
        http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        http.createContext("/image.qcow2", exchange -> {
            exchange.sendResponseHeaders(200, QCOW2.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(QCOW2);
            }
        });
        http.createContext("/missing", exchange -> {
            exchange.sendResponseHeaders(404, -1);
            exchange.close();
        });
        http.start();
        download = new ImageDownload(Duration.ofSeconds(10));
    }

    @AfterEach
    void stop() {
        download.close();
        http.stop(0);
    }

    @Test
    void shouldFetchAndDescribeTheImage() throws Exception {
        ImageDownload.Fetched fetched = download.fetch(new KvmSpec.Image(url("/image.qcow2"), sha256(QCOW2)));
        try {
            assertEquals(QCOW2.length, fetched.size());
            assertEquals(VolumeXml.Format.qcow2, fetched.format());
            assertEquals(sha256(QCOW2), fetched.sha256());
            assertEquals(QCOW2.length, Files.size(fetched.file()));
        } finally {
            Files.delete(fetched.file());
        }
    }

    @Test
    void shouldRefuseAnImageWhoseDigestDiffers() {
        ProviderException e = assertThrows(ProviderException.class,
                () -> download.fetch(new KvmSpec.Image(url("/image.qcow2"), "0".repeat(64))));
        assertInstanceOf(ProviderException.Permanent.class, e, e.getMessage());
        assertTrue(e.getMessage().contains("SHA-256 is " + sha256(QCOW2)), e.getMessage());
    }

    @Test
    void shouldRefuseAMissingImageAndAUrlThatIsNotHttp() {
        assertInstanceOf(ProviderException.Permanent.class, assertThrows(ProviderException.class,
                () -> download.fetch(new KvmSpec.Image(url("/missing"), null))));
        ProviderException file = assertThrows(ProviderException.class,
                () -> download.fetch(new KvmSpec.Image("file:///etc/passwd", null)));
        assertInstanceOf(ProviderException.Permanent.class, file);
        assertTrue(file.getMessage().contains("only http and https"), file.getMessage());
    }

    @Test
    void shouldTreatAnUnreachableServerAsTransient() {
        http.stop(0);
        assertInstanceOf(ProviderException.Transient.class, assertThrows(ProviderException.class,
                () -> download.fetch(new KvmSpec.Image(url("/image.qcow2"), null))));
    }

    private String url(String path) {
        return "http://127.0.0.1:" + http.getAddress().getPort() + path;
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
