package com.example.crawl.egress.tracing;

import com.google.protobuf.ByteString;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;
import java.util.zip.GZIPInputStream;

/**
 * A trace collector as small as a test needs: an OTLP/HTTP endpoint ({@code POST /v1/traces},
 * protobuf, gzip or not) on a loopback port of the JDK {@link HttpServer}, decoding each export
 * with the OTLP message classes and keeping every span with its resource's service name and its
 * scope. A test waits for spans with {@link #await} instead of sleeping. Thread-safe.
 */
public final class OtlpReceiver implements AutoCloseable {

    /** One received span, its ids in hex as logs carry them. */
    public record Received(String service, String scope, Span span) {
        public String name() {
            return span.getName();
        }

        public String traceId() {
            return hex(span.getTraceId());
        }

        public String spanId() {
            return hex(span.getSpanId());
        }

        /** The parent's span id, empty for a root. */
        public String parentSpanId() {
            return hex(span.getParentSpanId());
        }

        /** A string or integer attribute as text; null when absent. */
        public String attribute(String key) {
            for (KeyValue kv : span.getAttributesList()) {
                if (kv.getKey().equals(key)) {
                    return kv.getValue().hasIntValue() ? Long.toString(kv.getValue().getIntValue())
                            : kv.getValue().getStringValue();
                }
            }
            return null;
        }

        private static String hex(ByteString bytes) {
            return HexFormat.of().formatHex(bytes.toByteArray());
        }
    }

    private final HttpServer server;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition arrived = lock.newCondition();
    private final List<Received> spans = new ArrayList<>(); // guarded by lock
    private int exports; // guarded by lock

    private OtlpReceiver() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        server.setExecutor(executor);
        server.createContext("/v1/traces", this::export);
        server.start();
    }

    public static OtlpReceiver start() throws IOException {
        return new OtlpReceiver();
    }

    /** What {@code OTEL_EXPORTER_OTLP_ENDPOINT} should say: the SDK appends {@code /v1/traces}. */
    public String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private void export(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (!exchange.getRequestMethod().equals("POST")) {
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            InputStream body = exchange.getRequestBody();
            if ("gzip".equals(exchange.getRequestHeaders().getFirst("Content-Encoding"))) {
                body = new GZIPInputStream(body);
            }
            ExportTraceServiceRequest request = ExportTraceServiceRequest.parseFrom(body.readAllBytes());
            keep(request);
            byte[] answer = ExportTraceServiceResponse.getDefaultInstance().toByteArray();
            exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, answer.length == 0 ? -1 : answer.length);
            if (answer.length > 0) {
                exchange.getResponseBody().write(answer);
            }
        }
    }

    private void keep(ExportTraceServiceRequest request) {
        List<Received> received = new ArrayList<>();
        for (ResourceSpans rs : request.getResourceSpansList()) {
            String service = service(rs.getResource());
            for (ScopeSpans ss : rs.getScopeSpansList()) {
                for (Span s : ss.getSpansList()) {
                    received.add(new Received(service, ss.getScope().getName(), s));
                }
            }
        }
        lock.lock();
        try {
            spans.addAll(received);
            exports++;
            arrived.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private static String service(Resource resource) {
        return resource.getAttributesList().stream().filter(kv -> kv.getKey().equals("service.name"))
                .map(kv -> kv.getValue().getStringValue()).findFirst().orElse(null);
    }

    /** Every span received so far. */
    public List<Received> spans() {
        lock.lock();
        try {
            return List.copyOf(spans);
        } finally {
            lock.unlock();
        }
    }

    /** How many export requests arrived. */
    public int exports() {
        lock.lock();
        try {
            return exports;
        } finally {
            lock.unlock();
        }
    }

    /** Waits for a span that matches; fails the test if none arrives in time. */
    public Received await(Predicate<Received> match, Duration timeout) throws InterruptedException {
        long left = timeout.toNanos();
        lock.lock();
        try {
            while (true) {
                for (Received r : spans) {
                    if (match.test(r)) {
                        return r;
                    }
                }
                if (left <= 0) {
                    throw new AssertionError("no matching span within " + timeout + "; received: "
                            + spans.stream().map(Received::name).toList());
                }
                left = arrived.awaitNanos(left);
            }
        } finally {
            lock.unlock();
        }
    }

    /** The spans received so far of the trace {@code traceId}. */
    public List<Received> trace(String traceId) {
        return spans().stream().filter(r -> r.traceId().equals(traceId)).toList();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.close();
    }
}
