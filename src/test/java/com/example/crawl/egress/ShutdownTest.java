package com.example.crawl.egress;

import static com.example.crawl.egress.Shutdown.Stage.CLIENTS;
import static com.example.crawl.egress.Shutdown.Stage.LISTENERS;
import static com.example.crawl.egress.Shutdown.Stage.TELEMETRY;
import static com.example.crawl.egress.Shutdown.Stage.WORKERS;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ShutdownTest {

    private final List<String> closed = new ArrayList<>();

    private AutoCloseable component(String name) {
        return () -> closed.add(name);
    }

    @Test
    void shouldStopStageByStageInDeclaredOrderAndNewestFirstWithinAStage() {
        Shutdown shutdown = new Shutdown();
        shutdown.register(TELEMETRY, component("telemetry"));
        shutdown.register(CLIENTS, component("client"));
        shutdown.register(WORKERS, component("workers"));
        shutdown.register(CLIENTS, component("prober"));
        shutdown.register(LISTENERS, component("discovery"));
        shutdown.register(LISTENERS, component("metrics"));

        shutdown.stop();
        shutdown.stop();

        assertEquals(List.of("metrics", "discovery", "workers", "prober", "client", "telemetry"), closed,
                "once, by stage, whatever the order of registration");
    }

    @Test
    void shouldCloseTheRestWhenOneFailsAndKeepTheFailureCode() {
        Shutdown shutdown = new Shutdown();
        shutdown.register(CLIENTS, component("client"));
        shutdown.register(LISTENERS, () -> {
            throw new IllegalStateException("cannot close");
        });
        shutdown.fail(Main.EXIT_FAILED);

        shutdown.stop();

        assertEquals(List.of("client"), closed);
        assertEquals(Main.EXIT_FAILED, shutdown.exitCode());
    }
}
