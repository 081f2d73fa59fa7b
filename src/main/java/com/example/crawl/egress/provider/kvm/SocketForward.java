package com.example.crawl.egress.provider.kvm;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import net.schmizz.sshj.connection.Connection;

/**
 * A local UNIX socket whose every connection is carried over SSH to a UNIX socket on the server,
 * as {@code ssh -L local.sock:/remote.sock} does: each accepted connection opens one
 * {@link StreamLocalChannel} to {@code remotePath} and bytes are copied both ways until either
 * side ends, which ends both. A connection the server refuses (nothing listens at
 * {@code remotePath}) is closed at once, so the local client reads end-of-file.
 *
 * <p>Privacy: whoever can connect to the socket speaks to the remote libvirtd as the SSH user,
 * so the socket lives in a directory of its own created with mode 0700 (no moment with wider
 * permissions) and is itself 0600.
 *
 * <p>Threads: one virtual thread accepts, two per connection copy (blocking socket and sshj
 * stream I/O only, no native calls). {@link #close} may be called from any thread, is
 * idempotent, and ends every connection: it closes the listener and the local ends first (which
 * a blocked libvirt client sees at once), then the channels, and deletes the socket and its
 * directory.
 */
final class SocketForward implements Closeable {

    private static final String SOCKET_NAME = "libvirt.sock";
    private static final int BUFFER = 32 * 1024;

    private final Connection ssh;
    private final String remotePath;
    private final Path directory;
    private final ServerSocketChannel listener;
    private final Set<SocketChannel> clients = ConcurrentHashMap.newKeySet();
    private final Set<StreamLocalChannel> channels = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    private SocketForward(Connection ssh, String remotePath, Path directory, ServerSocketChannel listener) {
        this.ssh = ssh;
        this.remotePath = remotePath;
        this.directory = directory;
        this.listener = listener;
    }

    /** Binds a new private socket and starts accepting; connections go to {@code remotePath} over {@code ssh}. */
    static SocketForward start(Connection ssh, String remotePath) throws IOException {
        Path directory = Files.createTempDirectory("egress-kvm-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path socket = directory.resolve(SOCKET_NAME);
        ServerSocketChannel listener = null;
        try {
            listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            listener.bind(UnixDomainSocketAddress.of(socket));
            // bind applies the umask; the 0700 directory already keeps others out meanwhile.
            Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-------"));
        } catch (IOException | RuntimeException e) {
            if (listener != null) {
                listener.close();
            }
            Files.deleteIfExists(socket);
            Files.deleteIfExists(directory);
            throw e;
        }
        SocketForward forward = new SocketForward(ssh, remotePath, directory, listener);
        Thread.ofVirtual().name("kvm-forward-accept").start(forward::acceptLoop);
        return forward;
    }

    /** The local socket's path. */
    Path socket() {
        return directory.resolve(SOCKET_NAME);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        closeQuietly(listener);
        clients.forEach(SocketForward::closeQuietly);
        channels.forEach(SocketForward::closeQuietly);
        try {
            Files.deleteIfExists(socket());
            Files.deleteIfExists(directory);
        } catch (IOException e) {
            // Nothing else can be done; the directory is private and under the temporary directory.
        }
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                SocketChannel client = listener.accept();
                Thread.ofVirtual().name("kvm-forward").start(() -> carry(client));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    /** Carries one local connection until either end closes; both are closed on return. */
    private void carry(SocketChannel client) {
        StreamLocalChannel channel = new StreamLocalChannel(ssh, remotePath);
        track(client, channel);
        try {
            channel.open();
            InputStream fromRemote = channel.getInputStream();
            OutputStream toRemote = channel.getOutputStream();
            Thread upstream = Thread.ofVirtual().name("kvm-forward-up").start(() -> copyUp(client, toRemote, channel));
            copyDown(fromRemote, client);
            closeQuietly(client); // ends the upstream copy too
            upstream.join();
        } catch (IOException e) {
            // Refused by the server or the SSH connection is gone: the local client reads end-of-file.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            closeQuietly(client);
            closeQuietly(channel);
            clients.remove(client);
            channels.remove(channel);
        }
    }

    /** Registers both ends for {@link #close}; closes them at once if close has already run. */
    private void track(SocketChannel client, StreamLocalChannel channel) {
        clients.add(client);
        channels.add(channel);
        if (closed) { // close() sets the flag before it walks the sets, so one of the two closes them
            closeQuietly(client);
            closeQuietly(channel);
        }
    }

    private static void copyUp(SocketChannel client, OutputStream toRemote, StreamLocalChannel channel) {
        ByteBuffer buffer = ByteBuffer.allocate(BUFFER);
        try {
            while (client.read(buffer) >= 0) {
                toRemote.write(buffer.array(), 0, buffer.position());
                toRemote.flush();
                buffer.clear();
            }
        } catch (IOException e) {
            // either end closed: fall through and end the channel
        }
        closeQuietly(channel); // the downstream copy then reads end-of-file
    }

    private static void copyDown(InputStream fromRemote, SocketChannel client) throws IOException {
        byte[] buffer = new byte[BUFFER];
        for (int n; (n = fromRemote.read(buffer)) >= 0; ) {
            ByteBuffer out = ByteBuffer.wrap(buffer, 0, n);
            while (out.hasRemaining()) {
                client.write(out);
            }
        }
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception e) {
            // closing on the way out: the other end may be gone already
        }
    }
}
