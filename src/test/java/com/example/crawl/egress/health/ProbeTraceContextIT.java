package com.example.crawl.egress.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.ProxyCredentials;
import com.example.crawl.egress.tracing.ActiveSpan;
import com.example.crawl.egress.tracing.SpanRecorder;
import io.opentelemetry.api.trace.Span;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * A probe sent while a sampled span is current, under an SDK whose propagator would inject
 * {@code traceparent} if asked, sends exactly the bytes it sends without one: no trace context
 * ever reaches a proxy, or a target through it.
 */
@SuppressWarnings("try") // spans opened only to be current while the code under test runs
class ProbeTraceContextIT {

    private static final ConnectProber PROBER = new ConnectProber();
    private static final Duration TIMEOUT = Duration.ofSeconds(3);
    private static final ProxyCredentials CREDENTIALS = new ProxyCredentials("crawler-0a1b2c", "pw");

    @AfterAll
    static void closeProber() {
        PROBER.close();
    }

    private static String headUnderASpan(URI url) throws IOException, InterruptedException {
        BlockingQueue<String> heads = new LinkedBlockingQueue<>();
        try (SpanRecorder spans = new SpanRecorder();
                FakeProxy proxy = FakeProxy.start(client -> {
                    heads.add(FakeProxy.readHead(client));
                    client.getOutputStream().write("HTTP/1.1 204 No Content\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    FakeProxy.drain(client);
                });
                ActiveSpan probe = ActiveSpan.start(spans.tracer().spanBuilder(HealthEngine.SPAN))) {
            assertTrue(Span.current().getSpanContext().isSampled(), "a span a propagator would inject");
            PROBER.probe(new ProbeTarget(proxy.host(), proxy.port(), url, Set.of(204), TIMEOUT, false, CREDENTIALS));
            return heads.poll(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void shouldSendNoTraceContextOnTheAbsoluteUriGetThatTheTargetSees() throws Exception {
        assertEquals("GET http://target.test/generate_204 HTTP/1.1\r\nHost: target.test\r\n"
                + "User-Agent: egress-proxies-operator\r\nConnection: close\r\n" + "Proxy-Authorization: "
                + CREDENTIALS.basicAuthorization() + "\r\n\r\n",
                headUnderASpan(URI.create("http://target.test/generate_204")));
    }

    @Test
    void shouldSendNoTraceContextOnTheConnect() throws Exception {
        assertEquals("CONNECT target.test:443 HTTP/1.1\r\nHost: target.test:443\r\n"
                + "User-Agent: egress-proxies-operator\r\n" + "Proxy-Authorization: "
                + CREDENTIALS.basicAuthorization() + "\r\n\r\n",
                headUnderASpan(URI.create("https://target.test/generate_204")));
    }
}
