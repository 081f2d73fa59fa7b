package com.example.crawl.egress.health;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A stand-in for a fleet of http proxies: one listener on every loopback address
 * (127.0.0.0/8 reaches a wildcard socket), answering each absolute-URI {@code GET} with
 * {@code 204} and closing, or, as a black hole, accepting and never answering.
 *
 * <p>Run as its own process by benchmarks so the operator's CPU is measured alone:
 * {@code java ... LoopbackProxies <port> [answer|blackhole]} prints {@code ready <port>} when
 * listening.
 */
public final class LoopbackProxies implements AutoCloseable {
    private static final byte[] NO_CONTENT =
            "HTTP/1.1 204 No Content\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    private final ServerSocket server;
    private final boolean answer;
    private final AtomicLong served = new AtomicLong();

    private LoopbackProxies(ServerSocket server, boolean answer) {
        this.server = server;
        this.answer = answer;
        Thread.ofPlatform().daemon().name("loopback-proxies-accept").start(this::accept);
    }

    /** Proxies that answer every request with 204, on {@code port} (0 picks one). */
    public static LoopbackProxies answering(int port) throws IOException {
        return new LoopbackProxies(bind(port), true);
    }

    /** Proxies that accept connections and never send a byte. */
    public static LoopbackProxies blackHole(int port) throws IOException {
        return new LoopbackProxies(bind(port), false);
    }

    private static ServerSocket bind(int port) throws IOException {
        ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(InetAddress.getByName("0.0.0.0"), port), 4096);
        return s;
    }

    public int port() {
        return server.getLocalPort();
    }

    /** Requests answered so far. */
    public long served() {
        return served.get();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                Thread.ofVirtual().start(() -> serve(s));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void serve(Socket s) {
        try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
            if (!answer) {
                in.transferTo(OutputStream.nullOutputStream()); // hold the connection until the client gives up
                return;
            }
            skipHead(in);
            out.write(NO_CONTENT);
            out.flush();
            served.incrementAndGet();
        } catch (IOException e) {
            // the client went away; nothing to answer
        }
    }

    /** Reads up to the blank line that ends a request head (8 KiB at most). */
    private static void skipHead(InputStream in) throws IOException {
        int state = 0;
        for (int i = 0; i < 8192 && state < 4; i++) {
            int b = in.read();
            if (b < 0) {
                return;
            }
            state = (b == '\r' && state % 2 == 0) || (b == '\n' && state % 2 == 1) ? state + 1 : 0;
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        try (LoopbackProxies p = args.length > 1 && args[1].equals("blackhole") ? blackHole(port) : answering(port)) {
            System.out.println("ready " + p.port());
            System.out.flush();
            System.in.read(); // runs until the parent closes our stdin or exits
        }
    }
}
