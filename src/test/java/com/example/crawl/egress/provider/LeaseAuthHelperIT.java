package com.example.crawl.egress.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.ItRequirements;
import com.example.crawl.egress.api.LeaseCredentials;
import com.example.crawl.egress.api.ProxyCredentials;
import com.sun.net.httpserver.HttpServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The auth helper every operator-written Squid runs ({@link SquidAuth}), run by this machine's Perl
 * as Squid runs it: its files in a directory, one {@code username password} line in, {@code OK} or
 * {@code ERR} out. The operator's side is {@link LeaseCredentials}, and a JDK {@code HttpServer}
 * on loopback stands in for discovery's lease lists, so that each rule of the list can be shown:
 * what it names, what it leaves out, what is newer than it, and what the helper does with an answer
 * it cannot trust.
 */
class LeaseAuthHelperIT {

    private static final String PROXY = "crawl/eu-1";
    private static final ProxyCredentials OWN = ProxyCredentials.generate(new SecureRandom());

    @TempDir
    Path dir;
    private HttpServer operator;
    private final AtomicReference<String> list = new AtomicReference<>();
    private final List<String> authorizations = new CopyOnWriteArrayList<>();
    private Process helper;
    private Writer in;
    private BufferedReader out;

    @BeforeEach
    void writeFiles() throws IOException {
        ItRequirements.require("perl", Files.isExecutable(Path.of(SquidAuth.PERL)), "apt-get install perl");
        for (Map.Entry<String, String> file : SquidAuth.files(OWN, new SecureRandom()).entrySet()) {
            Files.writeString(dir.resolve(file.getKey()), file.getValue());
        }
        operator = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        operator.createContext("/", exchange -> {
            authorizations.add(exchange.getRequestURI().getPath() + " "
                    + exchange.getRequestHeaders().getFirst("Authorization"));
            String body = list.get();
            byte[] bytes = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(body == null ? 503 : 200, bytes.length == 0 ? -1 : bytes.length);
            try (OutputStream o = exchange.getResponseBody()) {
                o.write(bytes);
            }
        });
        operator.start();
    }

    @AfterEach
    void stop() throws Exception {
        if (helper != null) {
            helper.destroy();
            helper.waitFor();
        }
        operator.stop(0);
    }

    private void start(Optional<SquidAuth.LeaseList> lists) throws IOException {
        String program = SquidAuth.program(SquidAuth.PERL, dir.toString(), lists);
        helper = new ProcessBuilder(program.split(" ")).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        in = new java.io.OutputStreamWriter(helper.getOutputStream(), StandardCharsets.UTF_8);
        out = new BufferedReader(new InputStreamReader(helper.getInputStream(), StandardCharsets.UTF_8));
    }

    private SquidAuth.LeaseList lists() {
        return new SquidAuth.LeaseList(URI.create("http://127.0.0.1:" + operator.getAddress().getPort() + "/"), PROXY);
    }

    /** What the helper answers for {@code credentials}, as Squid sends them (URL-escaped). */
    private String check(ProxyCredentials credentials) throws IOException {
        in.write(escape(credentials.username()) + " " + escape(credentials.password()) + "\n");
        in.flush();
        return out.readLine();
    }

    private static String escape(String s) {
        return java.net.URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static ProxyCredentials lease(String digest, Instant minted, Duration ttl) {
        return LeaseCredentials.mint(OWN, digest, minted, minted.plus(ttl));
    }

    @Test
    void shouldTakeTheProxysOwnCredentialsForTheProbe() throws Exception {
        start(Optional.empty());

        assertEquals("OK", check(OWN));
        assertEquals("ERR", check(new ProxyCredentials(OWN.username(), OWN.password() + "x")));
        assertEquals("ERR", check(new ProxyCredentials("crawler-someone-else", OWN.password())));
        assertEquals("OK", check(new ProxyCredentials(OWN.username(), OWN.password())), "and still after refusals");
    }

    @Test
    void shouldTakeALeasesCredentialsUntilItsExpiryWhereNoListIsGiven() throws Exception {
        start(Optional.empty());
        Instant now = Instant.now();
        ProxyCredentials running = lease("digest-running", now, Duration.ofMinutes(5));
        ProxyCredentials expired = lease("digest-expired", now.minusSeconds(120), Duration.ofSeconds(60));
        ProxyCredentials stretched = new ProxyCredentials(running.username().replace(
                "." + now.plus(Duration.ofMinutes(5)).toEpochMilli() + ".",
                "." + now.plus(Duration.ofDays(5)).toEpochMilli() + "."), running.password());

        assertEquals("OK", check(running));
        assertEquals("ERR", check(expired));
        assertTrue(!stretched.username().equals(running.username()), stretched.username());
        assertEquals("ERR", check(stretched), "an expiry moved on invalidates the MAC");
        assertEquals("ERR", check(LeaseCredentials.mint(ProxyCredentials.generate(new SecureRandom()), "digest-running",
                now, now.plus(Duration.ofMinutes(5)))), "another proxy's key");
        assertEquals("ERR", check(new ProxyCredentials(running.username(), running.password().substring(1) + "0")));
        assertEquals("ERR", check(new ProxyCredentials(running.username(), OWN.password())));
    }

    @Test
    void shouldTakeOnlyWhatTheListNamesOrWhatIsNewerThanIt() throws Exception {
        Instant asOf = Instant.now();
        ProxyCredentials listed = lease("digest-listed", asOf.minusSeconds(10), Duration.ofMinutes(5));
        ProxyCredentials released = lease("digest-released", asOf.minusSeconds(10), Duration.ofMinutes(5));
        ProxyCredentials newer = lease("digest-newer", asOf.plusMillis(1), Duration.ofMinutes(5));
        list.set(LeaseCredentials.list(OWN, PROXY, asOf, List.of("digest-listed")));
        start(Optional.of(lists()));

        assertEquals("OK", check(listed));
        assertEquals("ERR", check(released), "minted before the list, and not in it: ended early");
        assertEquals("OK", check(newer), "minted after the list: it cannot be in it yet");
        assertEquals("OK", check(OWN), "the probe's credentials need no list");
        assertEquals(List.of("/v1/proxies/crawl/eu-1/leases Lease-List " + LeaseCredentials.listToken(OWN, PROXY)),
                authorizations, "asked once (the list is kept two seconds), with the proxy's own token");
    }

    @Test
    void shouldAskAgainAfterTwoSecondsAndSeeALeaseEnd() throws Exception {
        Instant asOf = Instant.now();
        ProxyCredentials held = lease("digest-held", asOf.minusSeconds(1), Duration.ofMinutes(5));
        list.set(LeaseCredentials.list(OWN, PROXY, asOf, List.of("digest-held")));
        start(Optional.of(lists()));
        assertEquals("OK", check(held));

        Instant released = Instant.now();
        list.set(LeaseCredentials.list(OWN, PROXY, released, List.of()));
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (check(held).equals("OK")) {
            assertTrue(System.nanoTime() - deadline < 0, "still taken 5 s after the list dropped the lease");
            Thread.onSpinWait();
        }
        double after = Duration.between(released, Instant.now()).toMillis() / 1000.0;
        assertTrue(after <= SquidAuth.GRACE_SECONDS, "refused " + after + " s after the list changed");
        System.out.printf("LeaseAuthHelperIT: a lease the list dropped was refused %.2f s later%n", after);
    }

    @Test
    void shouldKeepItsListWhenTheAnswerCannotBeTrusted() throws Exception {
        Instant asOf = Instant.now();
        ProxyCredentials released = lease("digest-released", asOf.minusSeconds(10), Duration.ofMinutes(5));
        ProxyCredentials forged = lease("digest-forged", asOf.minusSeconds(10), Duration.ofMinutes(5));
        list.set(LeaseCredentials.list(ProxyCredentials.generate(new SecureRandom()), PROXY, asOf.plusSeconds(60),
                List.of("digest-released", "digest-forged")));
        start(Optional.of(lists()));

        assertEquals("OK", check(released), "a list MAC'd with another key is no list: expiry alone rules");

        list.set(LeaseCredentials.list(OWN, "crawl/other", asOf, List.of()));
        helper.destroy();
        helper.waitFor();
        start(Optional.of(lists()));
        assertEquals("OK", check(forged), "the list of another proxy (even with this key) changes nothing here");

        list.set(null);
        helper.destroy();
        helper.waitFor();
        start(Optional.of(lists()));
        assertEquals("OK", check(released), "an operator that cannot answer leaves expiry to rule");
    }
}
