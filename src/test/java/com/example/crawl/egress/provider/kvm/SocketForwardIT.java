package com.example.crawl.egress.provider.kvm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.lab.KvmLab;
import java.io.IOException;
import java.io.StringReader;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import net.schmizz.sshj.SSHClient;
import net.schmizz.sshj.transport.verification.OpenSSHKnownHosts;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link SocketForward} and {@link StreamLocalChannel} through {@link KvmLab}'s real sshd to a
 * UNIX-socket echo server this test runs: bytes arrive intact both ways on concurrent
 * connections, the socket is private, and closing ends every connection and removes the files.
 */
class SocketForwardIT {

    private static final int CONNECTIONS = 4;
    private static final int BYTES = 256 * 1024;

    private static KvmLab lab;

    @TempDir
    Path dir;

    private SSHClient ssh;
    private EchoServer echo;

    @BeforeAll
    static void createLab() throws IOException {
        lab = KvmLab.create();
    }

    @AfterAll
    static void closeLab() {
        if (lab != null) {
            lab.close();
        }
    }

    @BeforeEach
    void connect() throws IOException {
        ssh = new SSHClient(HostConnection.sshConfig());
        ssh.addHostKeyVerifier(new OpenSSHKnownHosts(new StringReader(lab.knownHostsLine() + "\n")));
        ssh.connect("127.0.0.1", lab.sshPort());
        ssh.authPublickey(lab.sshUser(), ssh.loadKeys(lab.privateKeyFile().toString()));
        echo = EchoServer.start(dir.resolve("echo.sock"));
    }

    @AfterEach
    void disconnect() throws IOException {
        echo.close();
        ssh.disconnect();
    }

    @Test
    void shouldCarryBytesIntactBothWaysOnConcurrentConnections() throws Exception {
        try (SocketForward forward = SocketForward.start(ssh.getConnection(), echo.path.toString())) {
            List<Thread> clients = new ArrayList<>();
            List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
            for (int i = 0; i < CONNECTIONS; i++) {
                clients.add(Thread.ofVirtual().start(() -> {
                    try {
                        roundTrip(forward.socket());
                    } catch (Throwable t) {
                        failures.add(t);
                    }
                }));
            }
            for (Thread client : clients) {
                client.join();
            }
            assertEquals(List.of(), failures);
            assertEquals(CONNECTIONS, echo.accepted.get(), "one remote connection per local one");
        }
    }

    @Test
    void shouldKeepTheSocketPrivate() throws IOException {
        try (SocketForward forward = SocketForward.start(ssh.getConnection(), echo.path.toString())) {
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(forward.socket().getParent())));
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(forward.socket())));
        }
    }

    @Test
    void shouldEndOpenConnectionsAndRemoveItsFilesOnClose() throws Exception {
        SocketForward forward = SocketForward.start(ssh.getConnection(), echo.path.toString());
        Path socket = forward.socket();
        try (SocketChannel client = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            client.write(ByteBuffer.wrap(new byte[] {42}));
            ByteBuffer one = ByteBuffer.allocate(1);
            assertEquals(1, client.read(one), "the echo came back: the connection is up");

            forward.close();

            assertEquals(-1, readOrEnd(client), "the local client reads end-of-file");
            assertTrue(echo.ended.await(30, TimeUnit.SECONDS), "the remote end was closed as well");
        }
        assertFalse(Files.exists(socket), "socket removed");
        assertFalse(Files.exists(socket.getParent()), "its directory removed");
        forward.close(); // idempotent
    }

    @Test
    void shouldEndALocalConnectionTheServerRefuses() throws Exception {
        try (SocketForward forward = SocketForward.start(ssh.getConnection(), dir.resolve("nobody.sock").toString());
                SocketChannel client = SocketChannel.open(UnixDomainSocketAddress.of(forward.socket()))) {
            assertEquals(-1, readOrEnd(client), "nothing listens there: end-of-file, not a hang");
        }
    }

    /** Sends random bytes and reads them back, concurrently, over one local connection. */
    private static void roundTrip(Path socket) throws Exception {
        byte[] sent = new byte[BYTES];
        ThreadLocalRandom.current().nextBytes(sent);
        try (SocketChannel client = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            Thread writer = Thread.ofVirtual().start(() -> {
                try {
                    ByteBuffer out = ByteBuffer.wrap(sent);
                    while (out.hasRemaining()) {
                        client.write(out);
                    }
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            ByteBuffer received = ByteBuffer.allocate(BYTES);
            while (received.hasRemaining() && client.read(received) >= 0) {
                // reading until all came back
            }
            writer.join();
            assertArrayEquals(sent, received.array());
        }
    }

    private static int readOrEnd(SocketChannel client) {
        try {
            return client.read(ByteBuffer.allocate(1));
        } catch (IOException e) {
            return -1; // a reset is an end too
        }
    }

    /** A UNIX-socket server that writes back what it reads; counts connections and their ends. */
    private static final class EchoServer implements AutoCloseable {
        final Path path;
        final ServerSocketChannel listener;
        final java.util.concurrent.atomic.AtomicInteger accepted = new java.util.concurrent.atomic.AtomicInteger();
        final CountDownLatch ended = new CountDownLatch(1);

        private EchoServer(Path path, ServerSocketChannel listener) {
            this.path = path;
            this.listener = listener;
        }

        static EchoServer start(Path path) throws IOException {
            ServerSocketChannel listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            listener.bind(UnixDomainSocketAddress.of(path));
            EchoServer server = new EchoServer(path, listener);
            Thread.ofVirtual().start(server::accept);
            return server;
        }

        private void accept() {
            try {
                while (true) {
                    SocketChannel connection = listener.accept();
                    accepted.incrementAndGet();
                    Thread.ofVirtual().start(() -> echo(connection));
                }
            } catch (IOException e) {
                // closed
            }
        }

        private void echo(SocketChannel connection) {
            ByteBuffer buffer = ByteBuffer.allocate(8192);
            try (connection) {
                while (connection.read(buffer) >= 0) {
                    buffer.flip();
                    while (buffer.hasRemaining()) {
                        connection.write(buffer);
                    }
                    buffer.clear();
                }
            } catch (IOException e) {
                // a reset ends it too
            }
            ended.countDown();
        }

        @Override
        public void close() throws IOException {
            listener.close();
        }
    }
}
