package com.example.crawl.egress.provider.gcp;

import com.google.api.gax.core.NoCredentialsProvider;
import com.google.cloud.compute.v1.Instance;
import com.google.cloud.compute.v1.InstanceAggregatedList;
import com.google.cloud.compute.v1.InstancesClient;
import com.google.cloud.compute.v1.InstancesScopedList;
import com.google.cloud.compute.v1.Operation;
import com.google.cloud.compute.v1.Warning;
import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageOrBuilder;
import com.google.protobuf.util.JsonFormat;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A scripted Compute Engine REST endpoint on loopback (the JDK's {@code HttpServer}), for the real
 * {@code InstancesClient}. It records every request (method, path, decoded query, body) and
 * answers each with the next scripted {@link Answer}, whatever its path: the provider's calls are
 * sequential, so the script reads in call order. With the script empty it answers
 * {@link #otherwise}, by default a 500 that names the unscripted request.
 *
 * <p>Answers: a status and a JSON body ({@link #json}, {@link #error} in Google's error format,
 * {@link #operation}, {@link #instance}, {@link #page}); {@link #hang}, which holds the request
 * until {@link #close}; {@link #reset}, which closes the connection without a response.
 */
final class FakeCompute implements AutoCloseable {

    static final String PROJECT = "crawl-test";
    /** The {@code --cluster-name} of the provider under test. */
    static final String CLUSTER = "it-cluster";

    /** One request as received; {@code query} holds each parameter's last value, decoded. */
    record Request(String method, String path, Map<String, String> query, String body) { }

    /** What the fake does with one request. */
    sealed interface Answer permits Reply, Hang, Reset, Serve { }

    record Reply(int status, String body) implements Answer { }

    record Hang() implements Answer { }

    record Reset() implements Answer { }

    /** Answers from a model of the project ({@link ComputeProject}) instead of a script. */
    record Serve(Function<Request, Reply> handler) implements Answer { }

    private final HttpServer server;
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final CountDownLatch closed = new CountDownLatch(1);
    private final Deque<Answer> script = new ArrayDeque<>(); // guarded by this
    private final List<Request> requests = new ArrayList<>(); // guarded by this
    private Answer otherwise; // guarded by this

    private FakeCompute(HttpServer server) {
        this.server = server;
    }

    static FakeCompute start() {
        try {
            FakeCompute fake = new FakeCompute(HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0));
            fake.server.setExecutor(fake.executor);
            fake.server.createContext("/", fake::handle);
            fake.server.start();
            return fake;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code http://127.0.0.1:<port>}: what a providers-config entry's {@code endpoint} would say. */
    String endpoint() {
        return "http://" + server.getAddress().getHostString() + ":" + server.getAddress().getPort();
    }

    /** The real client against this endpoint: no credentials, one attempt per call, {@code timeout} each. */
    InstancesClient client(Duration timeout) {
        return clientFor(endpoint(), timeout);
    }

    /** The real client against any endpoint (one where nothing listens, say). */
    static InstancesClient clientFor(String endpoint, Duration timeout) {
        try {
            return InstancesClient.create(ComputeClients.settings(endpoint, NoCredentialsProvider.create(), timeout));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Appends answers to the script. */
    synchronized FakeCompute script(Answer... answers) {
        script.addAll(List.of(answers));
        return this;
    }

    /** The answer once the script is used up. */
    synchronized FakeCompute otherwise(Answer answer) {
        otherwise = answer;
        return this;
    }

    synchronized List<Request> requests() {
        return List.copyOf(requests);
    }

    /** Answers left in the script. */
    synchronized int unanswered() {
        return script.size();
    }

    static Reply json(int status, String body) {
        return new Reply(status, body);
    }

    static Reply ok(MessageOrBuilder message) {
        return new Reply(200, print(message));
    }

    static Hang hang() {
        return new Hang();
    }

    static Reset reset() {
        return new Reset();
    }

    /** Google's JSON error body: {@code {"error":{"code","message","errors":[{"message","domain","reason"}],"status"}}}. */
    static Reply error(int code, String status, String reason, String message) {
        JsonObject item = new JsonObject();
        item.addProperty("message", message);
        item.addProperty("domain", "global");
        item.addProperty("reason", reason);
        JsonArray errors = new JsonArray();
        errors.add(item);
        JsonObject error = new JsonObject();
        error.addProperty("code", code);
        error.addProperty("message", message);
        error.add("errors", errors);
        if (status != null) {
            error.addProperty("status", status);
        }
        JsonObject body = new JsonObject();
        body.add("error", error);
        return new Reply(code, body.toString());
    }

    /** A zonal long-running operation as insert and delete return it. */
    static Reply operation(String type, String zone, String instance, String status) {
        return ok(Operation.newBuilder().setKind("compute#operation").setId(4711).setName("operation-" + type + "-1")
                .setOperationType(type).setStatus(Operation.Status.valueOf(status))
                .setZone(zoneUrl(zone)).setTargetLink(zoneUrl(zone) + "/instances/" + instance).build());
    }

    static Reply instance(Instance vm) {
        return ok(vm);
    }

    /**
     * One page of {@code aggregatedList}: instances per scope ({@code zones/<zone>}), a warning per
     * scope without instances ({@code NO_RESULTS_ON_PAGE}, {@code UNREACHABLE}), and the token of
     * the next page ("" on the last).
     */
    static Reply page(Map<String, List<Instance>> instances, Map<String, String> warnings, String nextPageToken) {
        InstanceAggregatedList.Builder page = InstanceAggregatedList.newBuilder().setKind("compute#instanceAggregatedList")
                .setId("projects/" + PROJECT + "/aggregated/instances");
        instances.forEach((scope, vms) -> page.putItems(scope, InstancesScopedList.newBuilder().addAllInstances(vms).build()));
        warnings.forEach((scope, code) -> page.putItems(scope, InstancesScopedList.newBuilder().setWarning(Warning.newBuilder()
                .setCode(code).setMessage(code.equals("UNREACHABLE") ? "Scope " + scope + " is unreachable"
                        : "There are no results for scope '" + scope + "' on this page.")).build()));
        if (!nextPageToken.isEmpty()) {
            page.setNextPageToken(nextPageToken);
        }
        return ok(page);
    }

    static String zoneUrl(String zone) {
        return "https://www.googleapis.com/compute/v1/projects/" + PROJECT + "/zones/" + zone;
    }

    static String print(MessageOrBuilder message) {
        try {
            return JsonFormat.printer().print(message);
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** {@code body} (an insert's) read back as the instance it describes. */
    static Instance parseInstance(String body) {
        Instance.Builder vm = Instance.newBuilder();
        try {
            JsonFormat.parser().merge(body, vm);
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalArgumentException("not an Instance: " + body, e);
        }
        return vm.build();
    }

    private void handle(HttpExchange exchange) throws IOException {
        Answer answer;
        Request request = new Request(exchange.getRequestMethod(), exchange.getRequestURI().getRawPath(),
                query(exchange.getRequestURI().getRawQuery()),
                new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
        synchronized (this) {
            requests.add(request);
            answer = script.isEmpty() ? otherwise : script.poll();
        }
        if (answer == null) {
            Request last = requests().getLast();
            answer = error(500, "INTERNAL", "backendError", "FakeCompute: no answer scripted for "
                    + last.method() + " " + last.path());
        }
        switch (answer) {
            case Reply reply -> send(exchange, reply);
            case Hang hang -> {
                try {
                    closed.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                exchange.close();
            }
            case Reset reset -> exchange.close();
            case Serve serve -> send(exchange, serve.handler().apply(request));
        }
    }

    private static void send(HttpExchange exchange, Reply reply) throws IOException {
        byte[] body = reply.body().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json; charset=UTF-8");
        exchange.sendResponseHeaders(reply.status(), body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> out = new LinkedHashMap<>();
        if (raw == null || raw.isEmpty()) {
            return out;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            String key = eq < 0 ? pair : pair.substring(0, eq);
            String value = eq < 0 ? "" : pair.substring(eq + 1);
            out.put(URLDecoder.decode(key, StandardCharsets.UTF_8), URLDecoder.decode(value, StandardCharsets.UTF_8));
        }
        return out;
    }

    /** Stops the server and releases every hanging request. */
    @Override
    public void close() {
        closed.countDown();
        server.stop(0);
        executor.shutdownNow();
    }
}
