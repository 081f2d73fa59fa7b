package com.example.crawl.egress.provider.kubernetes;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A Kubernetes API for the pod provider's ITs: fabric8's mock server in CRUD mode on loopback,
 * where the test plays the kubelet (it writes pod status) and can make chosen requests fail.
 *
 * <p>What the mock (fabric8 8.0.0) does with pods, as these ITs rely on it: create stores the pod
 * with a {@code creationTimestamp} and no status, a taken name is 409; a status write through
 * {@code /status} sticks; DELETE without finalizers removes the pod at once (a real API server
 * keeps it, Terminating, for its grace period), with finalizers it only sets
 * {@code deletionTimestamp}; equality label selectors filter lists; {@code limit} is ignored.
 *
 * <p>Thread-safe: failures are claimed on the server's threads.
 */
final class PodApi implements AutoCloseable {

    /** Held so that the level sticks: the server logs every request at INFO. */
    private static final Logger SERVER_LOG = Logger.getLogger(MockWebServer.class.getName());

    static {
        SERVER_LOG.setLevel(Level.WARNING);
    }

    private final KubernetesMockServer server;
    private final FailingDispatcher dispatcher;
    private final KubernetesClient client;

    private PodApi(KubernetesMockServer server, FailingDispatcher dispatcher) {
        this.server = server;
        this.dispatcher = dispatcher;
        // fabric8's default retries 5xx; off, so that what the test injects is what the provider sees.
        this.client = server.createClient(b -> b.editOrNewConfig().withRequestRetryBackoffLimit(0).endConfig());
    }

    static PodApi start() {
        Map<ServerRequest, Queue<ServerResponse>> expectations = new ConcurrentHashMap<>();
        FailingDispatcher dispatcher = new FailingDispatcher(new KubernetesMixedDispatcher(expectations));
        KubernetesMockServer server = new KubernetesMockServer(new Context(Serialization.jsonMapper()),
                new MockWebServer(), expectations, dispatcher, false);
        server.start(InetAddress.getLoopbackAddress(), 0);
        return new PodApi(server, dispatcher);
    }

    /** A client of this server, closed by {@link #close()}. */
    KubernetesClient client() {
        return client;
    }

    /**
     * Answers the next request with this method and path (query ignored) with {@code code} and a
     * Kubernetes {@code Status} carrying {@code message}, instead of serving it.
     */
    void failNext(String method, String path, int code, String message) {
        dispatcher.failures.add(new Failure(method, path, code, message));
    }

    /** What the kubelet would report: the pod's phase and address, written through {@code /status}. */
    void writeStatus(String namespace, String name, String phase, String podIP) {
        Pod pod = client.pods().inNamespace(namespace).withName(name).get();
        pod.setStatus(new PodStatusBuilder().withPhase(phase).withPodIP(podIP).build());
        client.pods().inNamespace(namespace).resource(pod).updateStatus();
    }

    /** Every pod in every namespace, as stored. */
    List<Pod> pods() {
        return client.pods().inAnyNamespace().list().getItems();
    }

    @Override
    public void close() {
        client.close();
        server.destroy();
    }

    private record Failure(String method, String path, int code, String message) { }

    /** Answers from the first matching failure (used up by it), otherwise from the CRUD dispatcher. */
    private static final class FailingDispatcher extends Dispatcher {

        final List<Failure> failures = new CopyOnWriteArrayList<>();
        private final KubernetesMixedDispatcher delegate;

        FailingDispatcher(KubernetesMixedDispatcher delegate) {
            this.delegate = delegate;
        }

        @Override
        public MockResponse dispatch(RecordedRequest request) {
            String path = request.getPath().split("\\?", 2)[0];
            for (Failure f : failures) {
                if (f.method().equals(request.getMethod()) && f.path().equals(path) && failures.remove(f)) {
                    String body = Serialization.asJson(new StatusBuilder().withStatus("Failure").withCode(f.code())
                            .withMessage(f.message()).build());
                    return new MockResponse().setResponseCode(f.code()).setHeader("Content-Type", "application/json")
                            .setBody(body);
                }
            }
            return delegate.dispatch(request);
        }

        @Override
        public void shutdown() {
            delegate.shutdown();
        }
    }
}
