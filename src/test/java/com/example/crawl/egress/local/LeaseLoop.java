package com.example.crawl.egress.local;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import tools.jackson.databind.json.JsonMapper;

/**
 * A well-behaved discovery client on one thread: acquire ({@code POST /v1/leases} with a 60 s
 * TTL, 201), release ({@code DELETE /v1/leases/{id}}, 204), again, back to back, over one
 * HTTP/1.1 keep-alive connection with the bearer token, until stopped or until a call is not
 * answered as expected, which is kept as a failure and ends the loop. Every call's latency is kept
 * for the summary.
 */
final class LeaseLoop implements AutoCloseable {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(10);

    private final URI base;
    private final String token;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final Thread thread;
    private final CountDownLatch firstPair = new CountDownLatch(1);
    private final AtomicLong pairs = new AtomicLong();
    private final Queue<String> failures = new ConcurrentLinkedQueue<>();
    private final Queue<Long> latencies = new ConcurrentLinkedQueue<>();
    private volatile boolean stopped;

    private LeaseLoop(InetSocketAddress server, String token) {
        this.base = URI.create("http://" + server.getHostString() + ":" + server.getPort());
        this.token = token;
        this.thread = Thread.ofPlatform().name("lease-loop").unstarted(this::run);
    }

    static LeaseLoop start(InetSocketAddress server, String token) {
        LeaseLoop loop = new LeaseLoop(server, token);
        loop.thread.start();
        return loop;
    }

    /** Waits, bounded, for the first acquire and release: then the loop's connection is open. */
    void awaitFirstPair() throws InterruptedException {
        if (!firstPair.await(30, TimeUnit.SECONDS) || pairs.get() == 0) {
            throw new AssertionError("no lease pair; failures: " + failures);
        }
    }

    long pairs() {
        return pairs.get();
    }

    List<String> failures() {
        return List.copyOf(failures);
    }

    /** Calls made and their latency p50, p99 and maximum. */
    String summary() {
        List<Long> sorted = new ArrayList<>(latencies);
        sorted.sort(null);
        if (sorted.isEmpty()) {
            return "no calls";
        }
        return String.format("%d calls, p50 %.1f ms, p99 %.1f ms, max %.1f ms", sorted.size(),
                sorted.get(sorted.size() / 2) / 1e6, sorted.get((int) Math.ceil(sorted.size() * 0.99) - 1) / 1e6,
                sorted.getLast() / 1e6);
    }

    /** Ends the loop after the pair in flight. */
    void stop() throws InterruptedException {
        stopped = true;
        thread.join();
    }

    @Override
    public void close() throws InterruptedException {
        stop();
        http.close();
    }

    private void run() {
        try {
            while (!stopped) {
                String acquired = call("POST", "/v1/leases", "{\"ttlSeconds\":60}", 201);
                call("DELETE", "/v1/leases/" + JSON.readTree(acquired).get("leaseId").asString(), null, 204);
                pairs.incrementAndGet();
                firstPair.countDown();
            }
        } catch (IOException | RuntimeException e) {
            failures.add(e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            firstPair.countDown();
        }
    }

    /** The body of an answer with the {@code expected} status; any other answer is an IOException. */
    private String call(String method, String path, String body, int expected) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(base.resolve(path)).timeout(CALL_TIMEOUT)
                .header("Authorization", "Bearer " + token)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .build();
        long start = System.nanoTime();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        latencies.add(System.nanoTime() - start);
        if (response.statusCode() != expected) {
            throw new IOException(method + " " + path + ": " + response.statusCode() + " " + response.body());
        }
        return response.body();
    }
}
