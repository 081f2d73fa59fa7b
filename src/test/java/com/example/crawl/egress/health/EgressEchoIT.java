package com.example.crawl.egress.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.ItRequirements;
import com.example.crawl.egress.api.ProxyCredentials;
import com.example.crawl.egress.lab.Squid;
import java.net.URI;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ConnectProber#fetch}, the egress echo, through a real Squid to real JDK servers on
 * loopback: the address the echo names is the one the proxy connects from, over a tunnel or a
 * plain GET, with the proxy's credentials, whatever the body's framing; anything else is a failure
 * that says why.
 */
class EgressEchoIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    @TempDir
    static Path dir;
    static Squid squid;
    static TargetServer https;
    static TargetServer http;
    static ConnectProber prober;

    @BeforeAll
    static void start() throws Exception {
        ItRequirements.require("squid", Squid.installed(), "apt-get install squid");
        squid = Squid.start(dir.resolve("squid"));
        TestCertificate cert = TestCertificate.generate(dir.resolve("cert"));
        https = TargetServer.https(cert.serverContext());
        http = TargetServer.http();
        prober = new ConnectProber(cert.trustingContext());
    }

    @AfterAll
    static void stop() {
        for (AutoCloseable c : new AutoCloseable[] {prober, http, https, squid}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception ignored) {
                // best effort: the next one still gets closed
            }
        }
    }

    @Test
    void shouldLearnTheAddressTheProxyConnectsFromOverBothKindsOfRequest() throws Exception {
        try (Squid elsewhere = Squid.start(dir.resolve("elsewhere"), Optional.empty(), Optional.of("127.0.0.9"))) {
            for (URI url : List.of(https.url("/ip"), http.url("/ip"), https.url("/ip/chunked"), http.url("/ip/chunked"))) {
                assertEquals(new EchoResult.Learned("127.0.0.1"), prober.fetch(through(squid, url, null)), url + "");
                assertEquals(new EchoResult.Learned("127.0.0.9"), prober.fetch(through(elsewhere, url, null)),
                        url + ": what the echo saw, not where the proxy listens");
            }
        }
    }

    @Test
    void shouldSendTheProxysCredentials() throws Exception {
        ProxyCredentials credentials = ProxyCredentials.generate(new SecureRandom());
        try (Squid guarded = Squid.start(dir.resolve("guarded"), Optional.of(credentials))) {
            for (URI url : List.of(https.url("/ip"), http.url("/ip"))) {
                assertEquals(new EchoResult.Learned("127.0.0.1"), prober.fetch(through(guarded, url, credentials)));
                assertTrue(failed(prober.fetch(through(guarded, url, null))).contains("proxy wants credentials"), url + "");
            }
        }
    }

    @Test
    void shouldFailOnAnythingButAShortAddress() {
        assertTrue(failed(prober.fetch(through(squid, http.url("/status/204"), null))).contains("expected 200"));
        assertTrue(failed(prober.fetch(through(squid, https.url("/status/503"), null))).contains("answered 503"));
        String text = failed(prober.fetch(through(squid, http.url("/text/12"), null)));
        assertTrue(text.contains("not an IP address: \"xxxxxxxxxxxx\""), text);
        String longer = failed(prober.fetch(through(squid, https.url("/text/300"), null)));
        assertTrue(longer.startsWith("GET " + https.url("/text/300") + ": body of 300 bytes, more than 256"), longer);
        String chunked = failed(prober.fetch(through(squid, https.url("/text/300/chunked"), null)));
        assertTrue(chunked.contains("chunked body longer than 256 bytes"), chunked);
    }

    @Test
    void shouldVerifyTheEchosCertificate() throws Exception {
        try (ConnectProber defaultTrust = new ConnectProber()) {
            String failure = failed(defaultTrust.fetch(new ProbeTarget(squid.host(), squid.port(), https.url("/ip"),
                    Set.of(200), TIMEOUT, true)));

            assertTrue(failure.startsWith("TLS handshake with localhost:" + https.port()) && failure.contains("PKIX"),
                    "insecureSkipVerify is a probe's, never the echo's: " + failure);
        }
    }

    private static ProbeTarget through(Squid proxy, URI url, ProxyCredentials credentials) {
        return new ProbeTarget(proxy.host(), proxy.port(), url, Set.of(200), TIMEOUT, false, credentials);
    }

    private static String failed(EchoResult result) {
        return assertInstanceOf(EchoResult.Failed.class, result).message();
    }
}
