package com.example.crawl.egress.provider.kubernetes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.InstanceName;
import com.example.crawl.egress.config.ProviderConfig;
import com.example.crawl.egress.provider.CreateRequest;
import com.example.crawl.egress.provider.EgressPolicy;
import com.example.crawl.egress.provider.TargetStatus;
import com.example.crawl.egress.provider.TestCredentials;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The pod provider's health check: one target, {@code apiserver}, reached by listing managed pods. */
class PodCheckIT {

    private static final ProviderConfig.Kubernetes SETTINGS =
            new ProviderConfig.Kubernetes("proxies", ProviderConfig.Kubernetes.DEFAULT_IMAGE);
    private static final Map<String, String> DETAILS = Map.of("namespace", "proxies");

    private PodApi api;

    @BeforeEach
    void start() {
        api = PodApi.start();
    }

    @AfterEach
    void stop() {
        api.close();
    }

    private static PodProvider provider(KubernetesClient client) {
        return new PodProvider(client, SETTINGS, EgressPolicy.DEFAULT, PodProvider.REQUEST_TIMEOUT, Clock.systemUTC());
    }

    private static Instant in(Duration d) {
        return Instant.now().plus(d);
    }

    @Test
    void shouldReportTheApiServerReadyWhenManagedPodsCanBeListed() throws Exception {
        PodProvider provider = provider(api.client());
        assertEquals(List.of(TargetStatus.ready("apiserver", DETAILS)), provider.check(in(Duration.ofSeconds(5))),
                "no managed pod yet is still a successful list");

        provider.create(new CreateRequest(InstanceName.fromUid("uid-1"), "uid-1", "crawlers", "eu-1", 3128, null,
                TestCredentials.ANY, null, null, null));
        assertEquals(List.of(TargetStatus.ready("apiserver", DETAILS)), provider.check(in(Duration.ofSeconds(5))));
    }

    @Test
    void shouldReportForbiddenWhenTheOperatorMayNotListPods() {
        api.failNext("GET", "/api/v1/pods", 403, "pods is forbidden: cannot list resource \"pods\" at the cluster scope");

        TargetStatus status = single(provider(api.client()).check(in(Duration.ofSeconds(5))));

        assertEquals("Forbidden", status.reason());
        assertTrue(status.message().contains("HTTP 403: pods is forbidden"), status.message());
        assertEquals(DETAILS, status.details());
    }

    @Test
    void shouldReportAnyOtherHttpErrorAsAnApiError() {
        api.failNext("GET", "/api/v1/pods", 500, "etcdserver: leader changed");

        TargetStatus status = single(provider(api.client()).check(in(Duration.ofSeconds(5))));

        assertEquals("APIError", status.reason());
    }

    @Test
    void shouldReportAnApiServerThatRefusesConnectionsUnreachable() {
        try (KubernetesClient refusing = BlackHole.refusingClient()) {
            TargetStatus status = single(provider(refusing).check(in(Duration.ofSeconds(5))));

            assertEquals("Unreachable", status.reason());
            assertTrue(status.message().contains("cannot connect to the API server"), status.message());
        }
    }

    @Test
    void shouldReturnByTheDeadlineWhenTheApiServerDoesNotAnswer() throws Exception {
        try (BlackHole hole = BlackHole.open()) {
            long start = System.nanoTime();

            TargetStatus status = single(provider(hole.client()).check(in(Duration.ofMillis(300))));

            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertEquals("Timeout", status.reason());
            assertTrue(took.compareTo(Duration.ofSeconds(3)) < 0, "took " + took);
        }
    }

    @Test
    void shouldNotCallAtAllWhenTheDeadlineHasPassed() {
        Instant now = Instant.parse("2026-03-01T10:00:00Z");
        PodProvider provider = new PodProvider(api.client(), SETTINGS, EgressPolicy.DEFAULT, PodProvider.REQUEST_TIMEOUT,
                Clock.fixed(now, ZoneOffset.UTC));
        api.failNext("GET", "/api/v1/pods", 500, "a call would have used this up");

        TargetStatus status = single(provider.check(now));

        assertEquals("Timeout", status.reason());
        assertEquals("APIError", single(provider.check(now.plusSeconds(5))).reason(), "the failure was still unused");
    }

    private static TargetStatus single(List<TargetStatus> statuses) {
        assertEquals(1, statuses.size(), statuses.toString());
        TargetStatus status = statuses.get(0);
        assertEquals("apiserver", status.name());
        assertTrue(!status.ready() || status.reason().isEmpty(), status.toString());
        return status;
    }
}
