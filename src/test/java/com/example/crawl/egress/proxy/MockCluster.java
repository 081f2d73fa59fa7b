package com.example.crawl.egress.proxy;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.CustomResourceAware;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.server.mock.Resetable;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.net.InetAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * An in-process Kubernetes API for control-loop ITs: fabric8's {@link KubernetesMockServer} in CRUD
 * mode on loopback (plain HTTP, mixed dispatcher, so {@code server().expect()} still works) with the
 * {@code Proxy}, {@code ProviderHealth}, {@code ProxyPool} and {@code TargetPolicy} CRDs installed from {@code crd/}. Every request is recorded;
 * {@link #failNext} makes chosen requests fail ahead of expectations and CRUD; an exception escaping
 * the mock becomes a 500 instead of a request that never gets an answer.
 *
 * <p>How the mock (fabric8 8.0.0) behaves, each line asserted by the {@code MockCluster*IT} tests:
 * <ul>
 * <li>Create sets a unique {@code uid}, an RFC 3339 {@code creationTimestamp}, {@code generation: 1} and a
 *     {@code resourceVersion}; it drops {@code status} (status subresource); a taken name is 409.
 * <li>PUT of the main resource with a stale {@code resourceVersion} is 409, as on a real server.
 * <li>GAP: PUT {@code /status} with a stale {@code resourceVersion} is accepted (a real server says 409).
 * <li>PUT of the main resource keeps the stored {@code status}; PUT {@code /status} keeps spec and metadata.
 * <li>{@code generation} moves on spec changes only: not on status, labels or finalizers.
 * <li>GAP: the deletion mark leaves {@code generation} (a real server bumps it) and the grace period alone.
 * <li>DELETE with finalizers sets {@code deletionTimestamp}, bumps {@code resourceVersion} and keeps the
 *     object; a second DELETE changes nothing; DELETE without finalizers removes the object at once.
 * <li>Removing the last finalizer of a marked object (PUT or JSON Patch) deletes it; watches see DELETED.
 * <li>GAP: that PUT answers 200 with an empty body, so {@code update()} returns {@code null}.
 * <li>GAP: that PUT skips the {@code resourceVersion} check: a stale copy still deletes the object.
 * <li>Watches and informers get ADDED, MODIFIED (also for status-only writes and the deletion mark), DELETED.
 * <li>GAP: a new watch first gets ADDED for every existing object whatever its {@code resourceVersion}
 *     (informers absorb this: they report no duplicate events).
 * <li>Equality ({@code =}, {@code !=}) and existence label selectors filter lists and watches; an object
 *     relabelled into a selected watch arrives as ADDED, out of it as DELETED, as on a real server.
 * <li>GAP: set-based label selectors ({@code key in (...)}) are ignored and match everything.
 * <li>JSON Patch edits finalizers (add, append, remove by index); a {@code resourceVersion} in the patch is
 *     a precondition (409 when stale), so {@code edit()}, a JSON Patch that carries it, is optimistic too.
 * <li>GAP: a failing JSON Patch {@code test} op is never answered by the bare mock (500 here; real: 422).
 * <li>GAP: JSON merge patch appends to arrays and stores {@code null}s instead of deleting keys.
 * <li>GAP: strategic merge patch and server-side apply are refused with 415.
 * <li>fabric8's default client config retries 5xx after 100, 200, 400 ms...; {@link #client()} does not.
 * </ul>
 *
 * <p>Thread-safe: requests are recorded on the server's threads while a test reads them.
 */
public final class MockCluster implements AutoCloseable {

    private static final Path[] CRDS = {
        Path.of("crd/proxies.crawl.example.com.yaml"), Path.of("crd/providerhealths.crawl.example.com.yaml"),
        Path.of("crd/proxypools.crawl.example.com.yaml"), Path.of("crd/targetpolicies.crawl.example.com.yaml")};
    private static final Duration POLL = Duration.ofMillis(10);
    /**
     * Held so the level sticks: the server logs every request at INFO, which buries a failing test's
     * output and duplicates {@link #requests()}.
     */
    private static final Logger SERVER_LOG = Logger.getLogger(MockWebServer.class.getName());

    static {
        SERVER_LOG.setLevel(Level.WARNING);
    }

    /**
     * One request as the server received it; {@code query} is URL-decoded, empty when absent;
     * {@code userAgent} tells a test's own requests from those of the code under test.
     */
    public record Request(String method, String path, String query, String body, Instant time, String userAgent) {

        public boolean isWatch() {
            return ("&" + query + "&").contains("&watch=true&");
        }

        public boolean isWrite() {
            return List.of("POST", "PUT", "PATCH", "DELETE").contains(method);
        }

        public boolean isStatusWrite() {
            return (method.equals("PUT") || method.equals("PATCH")) && path.endsWith("/status");
        }

        @Override
        public String toString() {
            return method + " " + path + (query.isEmpty() ? "" : "?" + query);
        }
    }

    private final KubernetesMockServer server;
    private final RecordingDispatcher dispatcher;
    private final KubernetesClient client;
    private final AtomicBoolean closed = new AtomicBoolean();

    private MockCluster(KubernetesMockServer server, RecordingDispatcher dispatcher) {
        this.server = server;
        this.dispatcher = dispatcher;
        // Off so an injected 5xx reaches the caller; fabric8's default retries 5xx and I/O errors 10 times.
        this.client = server.createClient(b -> b.editOrNewConfig().withRequestRetryBackoffLimit(0).endConfig());
    }

    /** Starts the server on an ephemeral loopback port and installs both CRDs through the client. */
    public static MockCluster start() {
        Map<ServerRequest, Queue<ServerResponse>> expectations = new ConcurrentHashMap<>();
        return start(expectations, new KubernetesMixedDispatcher(expectations));
    }

    /**
     * As {@link #start()}, with the CRUD store indexed ({@link IndexedCrudDispatcher}) and no
     * expectations: for benchmarks with tens of thousands of objects.
     */
    public static MockCluster startIndexed() {
        return start(new ConcurrentHashMap<>(), new IndexedCrudDispatcher());
    }

    private static <D extends Dispatcher & Resetable & CustomResourceAware> MockCluster start(
            Map<ServerRequest, Queue<ServerResponse>> expectations, D crud) {
        RecordingDispatcher dispatcher = new RecordingDispatcher(crud);
        KubernetesMockServer server = new KubernetesMockServer(new Context(Serialization.jsonMapper()),
                new MockWebServer(), expectations, dispatcher, false);
        server.start(InetAddress.getLoopbackAddress(), 0);
        MockCluster cluster = new MockCluster(server, dispatcher);
        for (Path crd : CRDS) {
            var crds = cluster.client.apiextensions().v1().customResourceDefinitions();
            CustomResourceDefinition item = crds.load(crd.toFile()).item();
            crds.resource(item).create();
        }
        cluster.reset();
        return cluster;
    }

    /** A client of this server; closed by {@link #close()}. Its default namespace is {@code test}. */
    public KubernetesClient client() {
        return client;
    }

    KubernetesMockServer server() {
        return server;
    }

    /** Every request since start (after CRD installation) or the last {@link #reset()}, oldest first. */
    public List<Request> requests() {
        return List.copyOf(dispatcher.recorded);
    }

    /** POST, PUT, PATCH and DELETE requests. */
    public List<Request> writes() {
        return matching(Request::isWrite);
    }

    /** GET requests that are not watches: gets and lists. */
    public List<Request> reads() {
        return matching(r -> r.method().equals("GET") && !r.isWatch());
    }

    /** GET requests with {@code watch=true}. */
    List<Request> watches() {
        return matching(Request::isWatch);
    }

    /** PUT and PATCH requests to a {@code /status} subresource. */
    public List<Request> statusWrites() {
        return matching(Request::isStatusWrite);
    }

    /** Forgets the recorded requests; stored objects, expectations and pending failures stay. */
    public void reset() {
        dispatcher.recorded.clear();
    }

    /**
     * Answers the next {@code times} requests with this method and exact path (query ignored) with
     * {@code code} and a Kubernetes {@code Status} body, ahead of expectations and CRUD. Watch requests
     * are never failed. Failures registered earlier are used up first.
     */
    public void failNext(int times, String method, String path, int code) {
        dispatcher.failures.add(new Failure(method, path, code, times));
    }

    /**
     * Returns once {@code condition} holds, polling every 10 ms; fails the test after {@code bound}. For
     * ITs only, where the event being waited for happens on another thread.
     */
    public static void await(Duration bound, BooleanSupplier condition) {
        long deadline = System.nanoTime() + bound.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("condition not met within " + bound);
            }
            LockSupport.parkNanos(POLL.toNanos());
        }
    }

    /**
     * Closes the client, then the server. Idempotent.
     *
     * <p>A gap of the mock, not of the code under test: when a watch closes while the mock is sending
     * it an event, the mock's event loop waits for its sender thread (up to a minute) while the sender
     * waits for the event loop to write (30 s), and the server's shutdown gives up after 10 s. Every
     * assertion has run by then, so that one timeout is reported on stderr instead of failing the test;
     * any other shutdown failure still does.
     */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            client.close();
            try {
                server.destroy();
            } catch (IllegalStateException e) {
                if (!(e.getCause() instanceof TimeoutException)) {
                    throw e;
                }
                SERVER_LOG.log(Level.WARNING, "mock server shutdown timed out on its watch-close stall", e);
            }
        }
    }

    private List<Request> matching(Predicate<Request> filter) {
        return dispatcher.recorded.stream().filter(filter).toList();
    }

    /** A pending injected failure; {@code left} counts down as requests claim it. */
    private static final class Failure {

        private final String method;
        private final String path;
        private final int code;
        private final AtomicInteger left;

        Failure(String method, String path, int code, int times) {
            this.method = method;
            this.path = path;
            this.code = code;
            this.left = new AtomicInteger(times);
        }

        /** Claims one use of this failure if it applies to {@code r}. */
        boolean claim(Request r) {
            return !r.isWatch() && r.method().equals(method) && r.path().equals(path)
                    && left.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
        }
    }

    /**
     * Records, then answers from the first matching {@link Failure} or else the mixed dispatcher. Keeps
     * the mock server's {@code reset()} and {@code expectCustomResource()} working by forwarding them.
     */
    private static final class RecordingDispatcher extends Dispatcher implements Resetable, CustomResourceAware {

        final List<Request> recorded = new CopyOnWriteArrayList<>();
        final List<Failure> failures = new CopyOnWriteArrayList<>();
        private final Dispatcher delegate;
        private final Resetable resetable;
        private final CustomResourceAware customResources;

        <D extends Dispatcher & Resetable & CustomResourceAware> RecordingDispatcher(D delegate) {
            this.delegate = delegate;
            this.resetable = delegate;
            this.customResources = delegate;
        }

        @Override
        public MockResponse dispatch(RecordedRequest request) {
            Request r = record(request);
            recorded.add(r);
            for (Failure f : failures) {
                if (f.claim(r)) {
                    return status(f.code, "injected by MockCluster");
                }
            }
            try {
                return delegate.dispatch(request);
            } catch (RuntimeException e) {
                // The mock lets some exceptions escape (a failed JSON Patch "test" op); unanswered, the
                // client would wait for its request timeout, retries included.
                return status(500, e.toString());
            }
        }

        private static MockResponse status(int code, String message) {
            String body = Serialization.asJson(new StatusBuilder().withStatus("Failure").withCode(code)
                    .withMessage(message).build());
            return new MockResponse().setResponseCode(code).setHeader("Content-Type", "application/json")
                    .setBody(body);
        }

        private static Request record(RecordedRequest request) {
            String target = request.getPath();
            int q = target.indexOf('?');
            String query = q < 0 ? "" : URLDecoder.decode(target.substring(q + 1), StandardCharsets.UTF_8);
            // getBytes() leaves the body readable for the delegate; readUtf8() would drain it.
            String body = request.getBody() == null ? ""
                    : new String(request.getBody().getBytes(), StandardCharsets.UTF_8);
            String userAgent = request.getHeader("User-Agent");
            return new Request(request.getMethod(), q < 0 ? target : target.substring(0, q), query, body,
                    Instant.now(), userAgent == null ? "" : userAgent);
        }

        @Override
        public void reset() {
            resetable.reset();
        }

        @Override
        public void expectCustomResource(CustomResourceDefinitionContext context) {
            customResources.expectCustomResource(context);
        }

        @Override
        public void shutdown() {
            delegate.shutdown();
        }

        @Override
        public void releaseResources() {
            delegate.releaseResources();
        }
    }
}
