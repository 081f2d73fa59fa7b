package com.example.crawl.egress.replication;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.MissingNode;

/**
 * A crawler's view of the operator behind a Kubernetes Service: it knows the replicas
 * ({@link Replicas#running()}), asks each for {@code /readyz} every 100 ms as the endpoints
 * controller would, and spreads requests round-robin over the ready ones, with the bearer token.
 *
 * <p>What one call does, until it has an answer or 30 s have passed:
 * <ul>
 * <li>a refused, reset or timed-out connection is retried on the next ready replica (that replica is
 *     left out until its next readiness answer), and while none is ready the call waits for one;
 * <li>a 503 with a {@code Retry-After} of whole seconds (at least 1) and the error
 *     {@code leader_unavailable} is retried after that many seconds, as the server asked; any
 *     other 503 is an answer, and is counted as a bad 503;
 * <li>any other status is the answer.
 * </ul>
 * A call that runs out of time is an ultimately failed request: counted, and answered with status
 * 0. A lease call whose connection broke after it was sent is retried too, as a crawler would: the
 * lease it may have been granted unawares ends with its TTL (docs/api.md, Connections). {@link #callOn} pins a call to one replica (to ask every replica the same question); there a
 * refused connection is retried on that replica until it listens.
 *
 * <p>It also measures, for the test: 503s seen (per route) and the longest run of 503s on lease
 * calls, that is the longest time from a 503 to the next lease answer that was not one, over all
 * calls of all threads. No sleeping to make a race pass: the only waits are a {@code Retry-After}
 * the server asked for and polls of a condition, each bounded.
 *
 * <p>Thread-safe: many test threads call at once.
 */
final class ServiceClient implements AutoCloseable {

    static final Duration BOUND = Duration.ofSeconds(30);
    private static final Duration POLL = Duration.ofMillis(100);
    private static final Duration ATTEMPT_TIMEOUT = Duration.ofSeconds(5);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /**
     * The answer to one call; {@code status} 0 when it ultimately failed, {@code body} then says why.
     * {@code via} is the replica that answered.
     */
    record Reply(int status, String body, String via, Duration took) {

        JsonNode json() {
            try {
                return body.isEmpty() ? MissingNode.getInstance() : JSON.readTree(body);
            } catch (JacksonException e) {
                return MissingNode.getInstance();
            }
        }

        String error() {
            return json().path("error").asString("");
        }

        String leaseId() {
            return json().path("leaseId").asString("");
        }

        String proxy() {
            return json().path("proxy").path("name").asString("");
        }

        int count(String field) {
            return json().path(field).asInt(-1);
        }

        @Override
        public String toString() {
            return status + " via " + via + " after " + took.toMillis() + " ms: " + body;
        }
    }

    private final Replicas replicas;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(1)).build();
    private final Map<OperatorProcess, Boolean> ready = new ConcurrentHashMap<>();
    private final AtomicInteger next = new AtomicInteger();
    private final Thread poller;
    private volatile boolean closed;

    private final AtomicLong failed = new AtomicLong();
    private final Queue<String> failures = new ConcurrentLinkedQueue<>();
    private final Map<String, AtomicLong> seen503 = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> answeredBy = new ConcurrentHashMap<>();
    private final Queue<String> bad503s = new ConcurrentLinkedQueue<>();
    private final AtomicLong retryAfterMaxSeconds = new AtomicLong();
    private long runStart = -1; // guarded by this: nanoTime of the first 503 of the open run, -1 when none
    private long longestRun; // guarded by this

    ServiceClient(Replicas replicas) {
        this.replicas = replicas;
        this.poller = Thread.ofPlatform().daemon().name("service-readiness").start(this::pollReadiness);
    }

    /** {@code POST /v1/leases} with a selector, an optional target and a TTL. */
    Reply lease(Map<String, String> selector, Optional<String> target, int ttlSeconds) {
        return call("POST", "/v1/leases", leaseBody(selector, target, ttlSeconds));
    }

    /** {@code POST /v1/leases/{id}/report}; a target only when given. */
    Reply report(String leaseId, String result, Optional<String> target) {
        return call("POST", "/v1/leases/" + leaseId + "/report", reportBody(result, target));
    }

    Reply release(String leaseId) {
        return call("DELETE", "/v1/leases/" + leaseId, null);
    }

    Reply list() {
        return call("GET", "/v1/proxies", null);
    }

    static String leaseBody(Map<String, String> selector, Optional<String> target, int ttlSeconds) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("selector", selector);
        target.ifPresent(t -> body.put("target", t));
        body.put("ttlSeconds", ttlSeconds);
        return JSON.writeValueAsString(body);
    }

    static String reportBody(String result, Optional<String> target) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("result", result);
        target.ifPresent(t -> body.put("target", t));
        return JSON.writeValueAsString(body);
    }

    /** One call through the Service: round-robin over the ready replicas, retried as the class says. */
    Reply call(String method, String path, String body) {
        return send(method, path, body, Optional.empty());
    }

    /** One call to {@code replica} only, retried there as the class says. */
    Reply callOn(OperatorProcess replica, String method, String path, String body) {
        return send(method, path, body, Optional.of(replica));
    }

    /** Calls that ran out of time without an answer. */
    long failed() {
        return failed.get();
    }

    /** What the first few failed calls were. */
    List<String> failures() {
        return List.copyOf(failures);
    }

    /** 503 answers seen on {@code route} ("POST /v1/leases", "GET /v1/proxies", "DELETE /v1/leases/{id}", ...). */
    long seen503(String route) {
        AtomicLong n = seen503.get(route);
        return n == null ? 0 : n.get();
    }

    /** 503 answers seen on every route. */
    Map<String, Long> seen503() {
        Map<String, Long> out = new LinkedHashMap<>();
        seen503.forEach((k, v) -> out.put(k, v.get()));
        return out;
    }

    /** 503 answers without a usable {@code Retry-After} or with another error than {@code leader_unavailable}. */
    List<String> bad503s() {
        return List.copyOf(bad503s);
    }

    /** The largest {@code Retry-After} a server asked for, in seconds (0: none seen). */
    long retryAfterMaxSeconds() {
        return retryAfterMaxSeconds.get();
    }

    /** The longest time lease calls got only 503s: from a 503 to the next lease answer that was not one. */
    synchronized Duration longest503Run() {
        long open = runStart < 0 ? 0 : System.nanoTime() - runStart;
        return Duration.ofNanos(Math.max(longestRun, open));
    }

    /** A summary for messages and the closing note. */
    String summary() {
        Map<String, Long> by = new LinkedHashMap<>();
        answeredBy.forEach((k, v) -> by.put(k, v.get()));
        return "answers by replica " + by + ", failed " + failed() + " " + failures() + ", 503s " + seen503()
                + ", longest 503 run "
                + longest503Run().toMillis() + " ms, Retry-After max " + retryAfterMaxSeconds() + " s, bad 503s "
                + bad503s();
    }

    @Override
    public void close() {
        closed = true;
        poller.interrupt();
        http.close();
    }

    private Reply send(String method, String path, String body, Optional<OperatorProcess> pinned) {
        long start = System.nanoTime();
        long deadline = start + BOUND.toNanos();
        String route = route(method, path);
        String problem = "no replica ready";
        while (System.nanoTime() - deadline < 0) {
            Optional<OperatorProcess> replica = pinned.isPresent() ? pinned : pick();
            if (replica.isEmpty()) {
                LockSupport.parkNanos(POLL.toNanos() / 10);
                continue;
            }
            OperatorProcess to = replica.get();
            HttpResponse<String> response;
            try {
                response = http.send(request(to.discovery(), method, path, body), HttpResponse.BodyHandlers.ofString());
            } catch (IOException e) {
                problem = to + ": " + e;
                ready.put(to, false); // out until its next readiness answer
                if (pinned.isPresent()) {
                    LockSupport.parkNanos(POLL.toNanos());
                }
                continue;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                problem = "interrupted";
                break;
            }
            long now = System.nanoTime();
            Duration took = Duration.ofNanos(now - start);
            answeredBy.computeIfAbsent(to.name(), n -> new AtomicLong()).incrementAndGet();
            if (response.statusCode() != 503) {
                if (route.contains("/v1/leases")) {
                    leaseAnswered(now);
                }
                return new Reply(response.statusCode(), response.body(), to.name(), took);
            }
            seen503.computeIfAbsent(route, r -> new AtomicLong()).incrementAndGet();
            if (route.contains("/v1/leases")) {
                leaseGot503(now);
            }
            OptionalLong retryAfter = retryAfter(response);
            Reply reply = new Reply(503, response.body(), to.name(), took);
            if (retryAfter.isEmpty() || !reply.error().equals("leader_unavailable")) {
                bad503s.add(route + " " + response.headers().map() + " " + reply);
                return reply;
            }
            retryAfterMaxSeconds.accumulateAndGet(retryAfter.getAsLong(), Math::max);
            problem = "503 " + reply;
            long wake = now + Duration.ofSeconds(retryAfter.getAsLong()).toNanos();
            if (wake - deadline > 0) {
                break;
            }
            LockSupport.parkNanos(wake - now); // the protocol: the server said when to come back
        }
        failed.incrementAndGet();
        String message = method + " " + path + " failed after " + Duration.ofNanos(System.nanoTime() - start).toMillis()
                + " ms; last: " + problem;
        if (failures.size() < 10) {
            failures.add(message);
        }
        return new Reply(0, message, "", Duration.ofNanos(System.nanoTime() - start));
    }

    private HttpRequest request(URI base, String method, String path, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(ATTEMPT_TIMEOUT)
                .header("Authorization", "Bearer " + Replicas.TOKEN);
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        return b.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(body)).build();
    }

    /** The next ready replica, round-robin; empty while none is ready. */
    private Optional<OperatorProcess> pick() {
        List<OperatorProcess> candidates = new ArrayList<>();
        for (OperatorProcess p : replicas.running()) {
            if (ready.getOrDefault(p, false)) {
                candidates.add(p);
            }
        }
        if (candidates.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(candidates.get(Math.floorMod(next.getAndIncrement(), candidates.size())));
    }

    private void pollReadiness() {
        while (!closed) {
            for (OperatorProcess p : replicas.running()) {
                ready.put(p, Replicas.ready(p));
            }
            ready.keySet().retainAll(replicas.running());
            LockSupport.parkNanos(POLL.toNanos());
        }
    }

    private synchronized void leaseGot503(long now) {
        if (runStart < 0) {
            runStart = now;
        }
    }

    private synchronized void leaseAnswered(long now) {
        if (runStart >= 0) {
            longestRun = Math.max(longestRun, now - runStart);
            runStart = -1;
        }
    }

    /** Delta-seconds of at least 1, as the contract promises; anything else is empty. */
    private static OptionalLong retryAfter(HttpResponse<?> response) {
        Optional<String> value = response.headers().firstValue("Retry-After");
        if (value.isEmpty() || !value.get().matches("[0-9]{1,6}")) {
            return OptionalLong.empty();
        }
        long seconds = Long.parseLong(value.get());
        return seconds >= 1 ? OptionalLong.of(seconds) : OptionalLong.empty();
    }

    /** The route of a path: lease ids replaced by {@code {id}}. */
    static String route(String method, String path) {
        String p = path.replaceAll("^/v1/leases/[^/]+", "/v1/leases/{id}");
        int q = p.indexOf('?');
        return method + " " + (q < 0 ? p : p.substring(0, q));
    }
}
