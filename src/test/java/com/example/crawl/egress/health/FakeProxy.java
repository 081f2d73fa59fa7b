package com.example.crawl.egress.health;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A misbehaving proxy on a loopback port: every connection is handed to a {@link Behaviour} on its
 * own virtual thread. For the failure paths a real Squid will not take on request.
 *
 * <p>Thread-safe; {@link #close} closes the listener and every open connection, and is idempotent.
 */
final class FakeProxy implements AutoCloseable {

    /** What the fake does with one accepted connection; it may block until the socket closes. */
    @FunctionalInterface
    interface Behaviour {
        void serve(Socket client) throws IOException, InterruptedException;
    }

    private final ServerSocket listener;
    private final Behaviour behaviour;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();

    private FakeProxy(Behaviour behaviour) throws IOException {
        this.listener = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"));
        this.behaviour = behaviour;
        Thread.ofVirtual().name("fake-proxy-accept").start(this::acceptLoop);
    }

    static FakeProxy start(Behaviour behaviour) throws IOException {
        return new FakeProxy(behaviour);
    }

    String host() {
        return "127.0.0.1";
    }

    int port() {
        return listener.getLocalPort();
    }

    @Override
    public void close() throws IOException {
        listener.close();
        for (Socket s : open) {
            s.close();
        }
    }

    /** Reads one request head (up to the empty line) and returns it; null if the client closed first. */
    static String readHead(Socket client) throws IOException {
        InputStream in = client.getInputStream();
        StringBuilder head = new StringBuilder();
        int b;
        while ((b = in.read()) >= 0) {
            head.append((char) b);
            if (head.length() >= 4 && head.lastIndexOf("\r\n\r\n") == head.length() - 4) {
                return head.toString();
            }
        }
        return null;
    }

    /** Blocks until the client closes the connection (or the fake is closed). */
    static void drain(Socket client) throws IOException {
        client.getInputStream().transferTo(OutputStream.nullOutputStream());
    }

    private void acceptLoop() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                open.add(client);
                Thread.ofVirtual().name("fake-proxy-conn").start(() -> serve(client));
            } catch (IOException closed) {
                return;
            }
        }
    }

    private void serve(Socket client) {
        try (client) {
            behaviour.serve(client);
        } catch (IOException | InterruptedException expected) {
            // the prober hung up or the test ended: both are how a connection ends here
        } finally {
            open.remove(client);
        }
    }
}
