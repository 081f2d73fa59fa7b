package com.example.crawl.egress;

import com.example.crawl.egress.config.OperatorConfig;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The discovery connection limits, and {@code TCP_NODELAY} on every connection, handed to the JDK
 * HTTP server the only way it takes them: system properties, which it reads once, when the first
 * {@code HttpServer} of the JVM is created.
 *
 * <p>Contract:
 * <ul>
 * <li><b>JVM-wide.</b> Every JDK {@code HttpServer} in the process gets the same limits, each
 *     counting its own connections: discovery, the health endpoints, local mode's probe target.
 * <li><b>Before the first server.</b> {@link #apply} must run before anything creates an
 *     {@code HttpServer}; once one exists, later values are ignored by the JDK without a word.
 *     {@code Main} calls it right after parsing the config and configuring logging.
 * <li><b>Idempotent.</b> Applying the same config twice sets the same values. The values given
 *     here replace any {@code -D} of the same properties, so the flags are the one source.
 * </ul>
 * Public only so that {@code SlowClientBenchmark} (in the discovery package, its own JVM) applies
 * the limits the way {@code Main} does; {@code LayeringTest} keeps other main code from calling it.
 */
public final class JdkHttpServerLimits {

    /**
     * How often the JDK's two timer tasks look for connections past a limit, so a cut comes at
     * most this late. The JDK's own periods are 1 s for requests and answers and 10 s for idle
     * connections and those that never sent a byte: too coarse for "cut at the deadline".
     */
    static final Duration TICK = Duration.ofMillis(250);

    private JdkHttpServerLimits() {
    }

    /** Sets the properties for {@code discovery}'s limits; see the class contract for when. */
    public static void apply(OperatorConfig.Discovery discovery) {
        properties(discovery).forEach(System::setProperty);
    }

    /** The JDK's property names and the values {@code discovery} gives them, in the order set. */
    static Map<String, String> properties(OperatorConfig.Discovery discovery) {
        Map<String, String> p = new LinkedHashMap<>();
        // Connections past the cap are accepted and closed at once.
        p.put("jdk.httpserver.maxConnections", Integer.toString(discovery.maxConnections()));
        // From a request's first byte until its body has been read...
        p.put("sun.net.httpserver.maxReqTime", Long.toString(discovery.requestTimeout().toSeconds()));
        // ...and from then until the answer is written: a client that never reads it holds a slot too.
        p.put("sun.net.httpserver.maxRspTime", Long.toString(discovery.requestTimeout().toSeconds()));
        // Idle keep-alive connections; one that never sent a byte gets the shorter of this and maxReqTime.
        p.put("sun.net.httpserver.idleInterval", Long.toString(discovery.idleTimeout().toSeconds()));
        // Answers go out as written: an answer of more than one segment (a long list) otherwise waits
        // for the client's delayed ACK of the first, up to 40 ms on Linux, before its last is sent.
        p.put("sun.net.httpserver.nodelay", "true");
        p.put("sun.net.httpserver.timerMillis", Long.toString(TICK.toMillis()));
        p.put("sun.net.httpserver.clockTick", Long.toString(TICK.toMillis()));
        return p;
    }

    /** Removes every property {@link #apply} sets, for tests that run {@code Main} in a shared JVM. */
    /* test */ static void clear() {
        properties(new OperatorConfig.Discovery("", false, 1, Duration.ofSeconds(1), Duration.ofSeconds(1), ""))
                .keySet().forEach(System::clearProperty);
    }
}
