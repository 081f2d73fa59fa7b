package com.example.crawl.egress.lab;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Byte relays that carry TCP connections from one network namespace to another through a UNIX
 * socket: network namespaces share no loopback, but a UNIX socket is a file, the same from every
 * namespace. {@link #unixToTcp} runs in the test JVM and forwards each connection to its socket
 * to a TCP port on the host's loopback (the mock API server, say); {@link #main}, started inside
 * a {@link KvmLab}'s namespace, listens on {@code 127.0.0.1} there and forwards each connection to
 * such a socket. Together they let a process in the namespace reach a loopback server of the test
 * JVM as {@code 127.0.0.1:<port>}, and nothing else. The relays copy bytes and pass on each
 * side's end of stream (half close), so HTTP/1.1 and WebSockets (fabric8's watches) go through.
 *
 * <p>Keep the sockets in a directory only the test's user can enter (JUnit's {@code @TempDir},
 * 0700): whoever can connect to one reaches the server behind it.
 */
public final class SocketRelay implements AutoCloseable {

    /** What {@link #main} prints, followed by its ports, once every listener listens. */
    public static final String READY = "ready";
    private static final int BUFFER = 64 * 1024;

    private final ServerSocketChannel server;
    private final Thread acceptor;

    private SocketRelay(ServerSocketChannel server, Supplier<SocketAddress> target) {
        this.server = server;
        this.acceptor = Thread.ofVirtual().name("relay-accept").start(() -> accept(server, target));
    }

    /** Listens on a UNIX socket at {@code socket} and forwards each connection to {@code 127.0.0.1:port}. */
    public static SocketRelay unixToTcp(Path socket, int port) throws IOException {
        Files.deleteIfExists(socket);
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
        InetSocketAddress target = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        return new SocketRelay(server, () -> target);
    }

    /**
     * For each argument, a UNIX socket path, listens on an ephemeral port of {@code 127.0.0.1} in
     * this process's network namespace and forwards each connection to that socket. Prints
     * {@value #READY} and the ports in the arguments' order on one line once all listen, and exits
     * when its standard input closes (the test closes it, and so does the test JVM dying).
     */
    public static void main(String[] args) throws IOException {
        List<SocketRelay> relays = new ArrayList<>();
        StringBuilder ready = new StringBuilder(READY);
        for (String socket : args) {
            ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.INET);
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            UnixDomainSocketAddress target = UnixDomainSocketAddress.of(socket);
            relays.add(new SocketRelay(server, () -> target));
            ready.append(' ').append(((InetSocketAddress) server.getLocalAddress()).getPort());
        }
        System.out.println(ready);
        System.out.flush();
        System.in.transferTo(OutputStream.nullOutputStream());
        relays.forEach(SocketRelay::close);
        System.exit(0);
    }

    /** Stops listening; connections already relayed end when either side closes. */
    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException e) {
            // closing a listener has nothing to report
        }
        acceptor.interrupt();
    }

    private static void accept(ServerSocketChannel server, Supplier<SocketAddress> target) {
        while (server.isOpen()) {
            SocketChannel in;
            try {
                in = server.accept();
            } catch (IOException e) {
                return; // closed
            }
            Thread.ofVirtual().name("relay-connect").start(() -> relay(in, target.get()));
        }
    }

    private static void relay(SocketChannel in, SocketAddress target) {
        SocketChannel out;
        try {
            out = SocketChannel.open(target);
        } catch (IOException e) {
            closeQuietly(in);
            return;
        }
        Thread back = Thread.ofVirtual().name("relay-back").start(() -> copy(out, in));
        copy(in, out);
        try {
            back.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        closeQuietly(in);
        closeQuietly(out);
    }

    /** Copies until {@code from} ends, then ends {@code to}'s output; on an error closes both. */
    private static void copy(SocketChannel from, SocketChannel to) {
        ByteBuffer buffer = ByteBuffer.allocate(BUFFER);
        try {
            while (from.read(buffer) >= 0) {
                buffer.flip();
                while (buffer.hasRemaining()) {
                    to.write(buffer);
                }
                buffer.clear();
            }
            to.shutdownOutput();
        } catch (IOException e) {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private static void closeQuietly(SocketChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            // the connection is gone either way
        }
    }
}
