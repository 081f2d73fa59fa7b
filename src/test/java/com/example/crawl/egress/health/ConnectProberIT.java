package com.example.crawl.egress.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.ItRequirements;
import com.example.crawl.egress.api.ProxyCredentials;
import com.example.crawl.egress.lab.Squid;
import java.net.URI;
import java.nio.file.Files;
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
 * {@link ConnectProber} through a real Squid to real JDK servers on loopback: the paths a probe
 * takes in production, with a certificate generated for the test.
 */
class ConnectProberIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    @TempDir
    static Path dir;
    static Squid squid;
    static TestCertificate cert;
    static TargetServer https;
    static TargetServer http;
    static ConnectProber trusting;
    static ConnectProber defaultTrust;

    @BeforeAll
    static void start() throws Exception {
        ItRequirements.require("squid", Squid.installed(), "apt-get install squid");
        squid = Squid.start(dir.resolve("squid"));
        cert = TestCertificate.generate(dir.resolve("cert"));
        https = TargetServer.https(cert.serverContext());
        http = TargetServer.http();
        trusting = new ConnectProber(cert.trustingContext());
        defaultTrust = new ConnectProber();
    }

    @AfterAll
    static void stop() {
        for (AutoCloseable c : new AutoCloseable[] {trusting, defaultTrust, http, https, squid}) {
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
    void shouldSucceedThroughTheTunnelWhenTheTargetAnswersAsExpected() throws Exception {
        ProbeResult result = trusting.probe(target(https.url("/status/204"), false));

        ProbeResult.Success ok = assertInstanceOf(ProbeResult.Success.class, result);
        assertEquals(204, ok.status());
        assertTrue(ok.elapsed().compareTo(Duration.ZERO) > 0 && ok.elapsed().compareTo(TIMEOUT) < 0, ok.toString());
        awaitLogged("CONNECT localhost:" + https.port()); // the probe went through Squid
    }

    @Test
    void shouldSucceedWithAnAbsoluteUriGetForHttpTargets() throws Exception {
        ProbeResult result = trusting.probe(target(http.url("/status/204?probe=1"), false));

        assertEquals(204, assertInstanceOf(ProbeResult.Success.class, result).status());
        awaitLogged("GET http://localhost:" + http.port() + "/status/204"); // Squid logs once the transaction ends
    }

    @Test
    void shouldAuthenticateToAProxyThatDemandsCredentialsOnBothKindsOfProbe() throws Exception {
        ProxyCredentials credentials = ProxyCredentials.generate(new SecureRandom());
        try (Squid guarded = Squid.start(dir.resolve("guarded"), Optional.of(credentials))) {
            for (URI url : List.of(https.url("/status/204"), http.url("/status/204"))) {
                ProbeTarget with = new ProbeTarget(guarded.host(), guarded.port(), url, Set.of(204), TIMEOUT, false,
                        credentials);
                ProbeTarget wrong = new ProbeTarget(guarded.host(), guarded.port(), url, Set.of(204), TIMEOUT, false,
                        new ProxyCredentials(credentials.username(), "not-the-password"));
                ProbeTarget without = new ProbeTarget(guarded.host(), guarded.port(), url, Set.of(204, 407), TIMEOUT,
                        false);

                assertEquals(204, assertInstanceOf(ProbeResult.Success.class, trusting.probe(with)).status(), url + "");
                assertEquals(FailureReason.ProxyAuthRequired, failure(trusting.probe(wrong)).reason(), url + "");
                assertEquals(FailureReason.ProxyAuthRequired, failure(trusting.probe(without)).reason(),
                        url + ": a 407 is never success, even when expectedStatus lists it");
            }
        }
    }

    @Test
    void shouldFailWithUnexpectedStatusWhenTheTargetAnswersSomethingElse() {
        ProbeResult.Failure tunnelled = failure(trusting.probe(target(https.url("/status/500"), false)));
        ProbeResult.Failure plain = failure(trusting.probe(target(http.url("/status/404"), false)));

        assertEquals(FailureReason.UnexpectedStatus, tunnelled.reason());
        assertTrue(tunnelled.message().contains("500") && tunnelled.message().contains("[200, 204]"), tunnelled.message());
        assertEquals(FailureReason.UnexpectedStatus, plain.reason());
        assertTrue(plain.message().contains("404"), plain.message());
    }

    @Test
    void shouldFailTlsWhenTheCertificateIsNotTrusted() {
        ProbeResult.Failure failure = failure(defaultTrust.probe(target(https.url("/status/204"), false)));

        assertEquals(FailureReason.TlsFailed, failure.reason());
        assertTrue(failure.message().startsWith("TLS handshake with localhost:" + https.port()), failure.message());
        assertTrue(failure.message().contains("PKIX"), failure.message());
    }

    @Test
    void shouldSkipVerificationWhenTheTargetSaysSo() {
        ProbeResult result = defaultTrust.probe(target(https.url("/status/204"), true));

        assertEquals(204, assertInstanceOf(ProbeResult.Success.class, result).status());
    }

    @Test
    void shouldFailTlsWhenTheHostNameIsNotInTheCertificate() throws Exception {
        TestCertificate other = TestCertificate.generateFor(dir.resolve("other"), "other.test");
        try (TargetServer elsewhere = TargetServer.https(other.serverContext());
                ConnectProber trustingOther = new ConnectProber(other.trustingContext())) {
            ProbeTarget asLocalhost = target(elsewhere.url("/status/204"), false);

            ProbeResult.Failure failure = failure(trustingOther.probe(asLocalhost));

            assertEquals(FailureReason.TlsFailed, failure.reason());
            assertTrue(failure.message().contains("localhost"), failure.message());
            assertEquals(204, assertInstanceOf(ProbeResult.Success.class,
                    trustingOther.probe(target(elsewhere.url("/status/204"), true))).status(), "only the name was wrong");
        }
    }

    @Test
    void shouldVerifyAnIpLiteralAgainstTheCertificatesIpAddresses() {
        ProbeResult result = trusting.probe(target(https.url("127.0.0.1", "/status/204"), false));

        assertEquals(204, assertInstanceOf(ProbeResult.Success.class, result).status());
    }

    @Test
    void shouldSeeAStoppedSquidRefuseAndARestartedOneWorkOnTheSamePort() throws Exception {
        try (Squid own = Squid.start(dir.resolve("restarted"))) {
            ProbeTarget through = new ProbeTarget(own.host(), own.port(), https.url("/status/204"), Set.of(204), TIMEOUT,
                    false);
            assertInstanceOf(ProbeResult.Success.class, trusting.probe(through));

            own.stop();
            assertEquals(FailureReason.ConnectRefused, failure(trusting.probe(through)).reason());

            own.start();
            assertInstanceOf(ProbeResult.Success.class, trusting.probe(through));
        }
    }

    /** Waits, bounded, for Squid's access log to show {@code entry}: it writes a line when a transaction ends. */
    private static void awaitLogged(String entry) throws Exception {
        long end = System.nanoTime() + TIMEOUT.toNanos();
        while (!Files.readString(squid.accessLog()).contains(entry)) {
            if (System.nanoTime() - end > 0) {
                throw new AssertionError("not in the access log: " + entry + "\n" + Files.readString(squid.accessLog()));
            }
            Thread.onSpinWait();
        }
    }

    private static ProbeTarget target(URI url, boolean insecureSkipVerify) {
        return new ProbeTarget(squid.host(), squid.port(), url, Set.of(200, 204), TIMEOUT, insecureSkipVerify);
    }

    static ProbeResult.Failure failure(ProbeResult result) {
        return assertInstanceOf(ProbeResult.Failure.class, result);
    }
}
