package com.example.crawl.egress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.example.crawl.egress.config.OperatorConfig;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class JdkHttpServerLimitsTest {

    private static final OperatorConfig.Discovery LIMITS = new OperatorConfig.Discovery("t", false, 600,
            Duration.ofSeconds(2), Duration.ofSeconds(3), "");

    @AfterEach
    void clear() {
        JdkHttpServerLimits.clear();
    }

    @Test
    void shouldGiveTheRequestDeadlineToReadingAndAnsweringAndTickFourTimesASecond() {
        assertEquals(Map.of("jdk.httpserver.maxConnections", "600", "sun.net.httpserver.maxReqTime", "2",
                "sun.net.httpserver.maxRspTime", "2", "sun.net.httpserver.idleInterval", "3",
                "sun.net.httpserver.nodelay", "true",
                "sun.net.httpserver.timerMillis", "250", "sun.net.httpserver.clockTick", "250"),
                JdkHttpServerLimits.properties(LIMITS));
    }

    @Test
    void shouldReplaceValuesGivenWithMinusDAndSetTheSameOnASecondCall() {
        System.setProperty("sun.net.httpserver.maxReqTime", "99");
        JdkHttpServerLimits.apply(LIMITS);
        JdkHttpServerLimits.apply(LIMITS);
        JdkHttpServerLimits.properties(LIMITS).forEach((name, value) -> assertEquals(value, System.getProperty(name)));
    }

    @Test
    void shouldClearEveryPropertyItSets() {
        JdkHttpServerLimits.apply(LIMITS);
        JdkHttpServerLimits.clear();
        JdkHttpServerLimits.properties(LIMITS).keySet().forEach(name -> assertNull(System.getProperty(name), name));
    }
}
