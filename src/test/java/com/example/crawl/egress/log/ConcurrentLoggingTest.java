package com.example.crawl.egress.log;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.event.Level;
import tools.jackson.databind.JsonNode;

class ConcurrentLoggingTest {
    private static final int THREADS = 16;
    private static final int EVENTS_PER_THREAD = 500;
    private static final String PAYLOAD = "x".repeat(300);

    @Test
    void shouldWriteOnlyWholeLinesWhenManyThreadsLogAtOnce() throws InterruptedException {
        CapturedLog log = new CapturedLog(LogFormat.JSON, Level.INFO);
        Logger logger = log.logger(CapturedLog.OWN);
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int thread = t;
            threads.add(Thread.ofPlatform().start(() -> logMany(logger, start, thread)));
        }

        start.countDown();
        for (Thread thread : threads) {
            thread.join();
        }

        Set<String> seen = new HashSet<>();
        for (JsonNode line : log.jsonLines()) {
            assertEquals(PAYLOAD, line.get("payload").stringValue());
            seen.add(line.get("thread").intValue() + "/" + line.get("seq").intValue());
        }
        assertEquals(THREADS * EVENTS_PER_THREAD, log.lines().size());
        assertEquals(THREADS * EVENTS_PER_THREAD, seen.size(), "every event exactly once");
    }

    private static void logMany(Logger logger, CountDownLatch start, int thread) {
        try {
            start.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        for (int seq = 0; seq < EVENTS_PER_THREAD; seq++) {
            logger.atInfo()
                    .addKeyValue("thread", thread)
                    .addKeyValue("seq", seq)
                    .addKeyValue("payload", PAYLOAD)
                    .log("Concurrent event");
        }
    }
}
