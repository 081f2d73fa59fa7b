package com.example.crawl.egress.provider.kvm;

import com.example.crawl.egress.api.KvmSpec;
import com.example.crawl.egress.provider.ProviderException;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Fetches a base image into a temporary file on the operator's side, hashing it on the way, so
 * that the host only ever receives bytes whose digest matched {@code spec.kvm.image.sha256}.
 * Only {@code http} and {@code https} URLs; redirects are followed except from https to http.
 * The whole transfer, body included, is bounded by one timeout; a file of the wrong length
 * (a connection closed early) fails the transfer.
 *
 * <p>Thread-safe; one shared {@link HttpClient}.
 */
final class ImageDownload implements AutoCloseable {

    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(20);

    private final HttpClient http;
    private final Duration timeout;

    ImageDownload(Duration timeout) {
        this.timeout = timeout;
        this.http = HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT)
                .followRedirects(HttpClient.Redirect.NORMAL).build();
    }

    /** A downloaded image: its file (the caller deletes it), size, first bytes and SHA-256. */
    record Fetched(Path file, long size, VolumeXml.Format format, String sha256) {
    }

    /**
     * Downloads {@code image} into a new temporary file and verifies its digest when one is given.
     *
     * @throws ProviderException.Permanent when the URL is not http(s), the server answers 4xx, or
     *                                     the digest does not match (the same URL will serve the
     *                                     same bytes)
     * @throws ProviderException.Transient when the transfer fails, times out or the server
     *                                     answers otherwise
     */
    Fetched fetch(KvmSpec.Image image) throws ProviderException {
        URI uri = uri(image.url());
        Path file;
        try {
            file = Files.createTempFile("egress-kvm-image-", ".part");
        } catch (IOException e) {
            throw new ProviderException.Transient("base image " + uri + ": cannot create a temporary file: " + e, e);
        }
        try {
            Fetched fetched = download(uri, file);
            if (image.sha256() != null && !image.sha256().isEmpty() && !image.sha256().equals(fetched.sha256())) {
                throw new ProviderException.Permanent("base image " + uri + ": SHA-256 is " + fetched.sha256()
                        + ", spec.kvm.image.sha256 says " + image.sha256());
            }
            return fetched;
        } catch (ProviderException | RuntimeException e) {
            deleteQuietly(file);
            throw e;
        }
    }

    private Fetched download(URI uri, Path file) throws ProviderException {
        HttpRequest request = HttpRequest.newBuilder(uri).GET().build();
        Future<HttpResponse<Path>> sent = http.sendAsync(request, HttpResponse.BodyHandlers.ofFile(file));
        HttpResponse<Path> response;
        try {
            // The future ends with the body, so this one wait bounds the whole transfer.
            response = sent.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            sent.cancel(true);
            throw new ProviderException.Transient("base image " + uri + ": not downloaded within " + timeout, e);
        } catch (ExecutionException e) {
            throw new ProviderException.Transient("base image " + uri + ": download broke off: " + e.getCause(),
                    e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            sent.cancel(true);
            throw new ProviderException.Transient("base image " + uri + ": interrupted", e);
        }
        int status = response.statusCode();
        if (status != 200) {
            String what = "base image " + uri + ": HTTP " + status;
            throw status >= 400 && status < 500 && status != 408 && status != 429
                    ? new ProviderException.Permanent(what) : new ProviderException.Transient(what);
        }
        try {
            return digest(file);
        } catch (IOException e) {
            throw new ProviderException.Transient("base image " + uri + ": cannot read the download back: " + e, e);
        }
    }

    /** The file's size, format (by its first bytes) and SHA-256. */
    private static Fetched digest(Path file) throws IOException {
        MessageDigest sha = sha256();
        byte[] head;
        try (InputStream in = Files.newInputStream(file)) {
            head = in.readNBytes(4);
            sha.update(head);
            byte[] buffer = new byte[1 << 16];
            for (int n; (n = in.read(buffer)) >= 0; ) {
                sha.update(buffer, 0, n);
            }
        }
        return new Fetched(file, Files.size(file), VolumeXml.sniff(head), HexFormat.of().formatHex(sha.digest()));
    }

    private static URI uri(String url) throws ProviderException.Permanent {
        URI uri;
        try {
            uri = URI.create(url);
        } catch (IllegalArgumentException e) {
            throw new ProviderException.Permanent("spec.kvm.image.url: not a URL: " + e.getMessage());
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https") || uri.getHost() == null) {
            throw new ProviderException.Permanent("spec.kvm.image.url: only http and https URLs are fetched, got "
                    + url);
        }
        return uri;
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK ships SHA-256", e);
        }
    }

    /** Releases the HTTP client's threads. */
    @Override
    public void close() {
        http.close();
    }

    static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            // a temporary file left behind; the OS's tmp cleaning takes it
        }
    }
}
