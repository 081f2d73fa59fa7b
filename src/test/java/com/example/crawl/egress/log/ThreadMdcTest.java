package com.example.crawl.egress.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

class ThreadMdcTest {

    @Test
    void shouldNotHandItsFieldsToAThreadStartedWhileTheyAreSet() throws Exception {
        ThreadMdc mdc = new ThreadMdc();
        mdc.put("traceID", "4bf92f3577b34da6a3ce929d0e0e4736");
        AtomicReference<String> seen = new AtomicReference<>("unset");

        Thread child = Thread.ofPlatform().start(() -> seen.set(mdc.get("traceID")));
        child.join();
        Thread virtual = Thread.ofVirtual().start(() -> seen.compareAndSet(null, mdc.get("traceID")));
        virtual.join();

        assertNull(seen.get(), "a new thread starts without the creator's fields");
        assertEquals("4bf92f3577b34da6a3ce929d0e0e4736", mdc.get("traceID"), "the creator keeps them");
    }

    @Test
    void shouldKeepFieldsPerThreadAndCopyOnlyWhenAsked() {
        ThreadMdc mdc = new ThreadMdc();
        mdc.put("reconcileID", "r1");

        Map<String, String> copy = mdc.getCopyOfContextMap();
        copy.put("reconcileID", "changed");
        mdc.remove("reconcileID");

        assertNull(mdc.get("reconcileID"));
        mdc.setContextMap(Map.of("a", "b"));
        assertEquals(Map.of("a", "b"), mdc.getCopyOfContextMap());
        mdc.clear();
        assertNull(mdc.getCopyOfContextMap());
    }

    @Test
    void shouldBeTheProcesssMdc() {
        assertEquals(ThreadMdc.class, MDC.getMDCAdapter().getClass());
    }
}
