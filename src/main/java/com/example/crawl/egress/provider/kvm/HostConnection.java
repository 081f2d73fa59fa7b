package com.example.crawl.egress.provider.kvm;

import com.example.crawl.egress.config.ProviderConfig;
import java.io.IOException;
import java.time.Duration;
import net.schmizz.keepalive.KeepAliveProvider;
import net.schmizz.sshj.DefaultConfig;
import net.schmizz.sshj.SSHClient;
import net.schmizz.sshj.common.LoggerFactory;
import net.schmizz.sshj.common.SSHException;
import org.libvirt.Connect;
import org.libvirt.LibvirtException;
import org.slf4j.Logger;
import org.slf4j.helpers.NOPLogger;

/**
 * One live path to a host's libvirtd: an SSH connection authenticated with the host's key, the
 * libvirt socket forwarded to a private local socket ({@link SocketForward}), and a libvirt
 * connection over it.
 *
 * <p>Dialing, libvirt calls and {@link #close} are native and belong on platform threads; the
 * owner ({@link HostSlot}) runs them on the host's platform threads, one at a time. {@link #sever} is
 * pure Java and safe from any thread at any moment: it cuts the forward and the SSH connection,
 * so a libvirt call blocked on an unresponsive daemon fails at once; the connection is then
 * broken and only {@link #close} remains to be called.
 */
final class HostConnection {

    /** sshj's keepalive: a dead TCP path ends the connection after five unanswered rounds. */
    private static final int SSH_KEEPALIVE_SECONDS = 10;
    /** libvirt's: a daemon that answers no ping for interval x (count + 1) seconds is dropped. */
    private static final int LIBVIRT_KEEPALIVE_SECONDS = 5;
    private static final int LIBVIRT_KEEPALIVE_COUNT = 3;
    /** sshj logs nothing of ours: see {@link #sshConfig}. */
    private static final LoggerFactory QUIET = new LoggerFactory() {
        @Override
        public Logger getLogger(String name) {
            return NOPLogger.NOP_LOGGER;
        }

        @Override
        public Logger getLogger(Class<?> clazz) {
            return NOPLogger.NOP_LOGGER;
        }
    };

    private final ProviderConfig.KvmHost host;
    private final SSHClient ssh;
    private final SocketForward forward;
    private volatile Connect libvirt; // set once by openLibvirt

    private HostConnection(ProviderConfig.KvmHost host, SSHClient ssh, SocketForward forward) {
        this.host = host;
        this.ssh = ssh;
        this.forward = forward;
    }

    /**
     * Connects to {@code host} as its user with {@code material} and forwards its libvirt socket;
     * {@code timeout} bounds the TCP connect and each SSH wait (key exchange, authentication,
     * channel open). Pure Java. libvirt is opened next, by {@link #openLibvirt}: in between, the
     * owner can record the connection so that {@link #sever} can cut a dial that hangs.
     *
     * @throws DialFailure tagged with the stage that failed; nothing is left open
     */
    static HostConnection dialSsh(ProviderConfig.KvmHost host, SshMaterial material, Duration timeout)
            throws DialFailure {
        SSHClient ssh = client(material, timeout);
        try {
            connect(ssh, host, material);
            return new HostConnection(host, ssh, forward(ssh, host));
        } catch (DialFailure | RuntimeException e) {
            disconnect(ssh);
            throw e;
        }
    }

    /**
     * Opens libvirt through the forward, with keepalive: the remote socket is first reached here,
     * so a daemon that is down or a wrong socket path shows here. Blocks; native. On failure the
     * whole connection is closed.
     *
     * @throws DialFailure at stage {@code libvirt-connect}
     */
    void openLibvirt() throws DialFailure {
        Connect opened = null;
        try {
            LibvirtEventLoop.ensureRunning();
            opened = new Connect("qemu+unix:///system?socket=" + forward.socket());
            opened.setKeepAlive(LIBVIRT_KEEPALIVE_SECONDS, LIBVIRT_KEEPALIVE_COUNT);
            libvirt = opened;
        } catch (LibvirtException e) {
            if (opened != null) {
                closeQuietly(opened);
            }
            sever();
            throw new DialFailure(DialFailure.Stage.LIBVIRT_CONNECT, "cannot open libvirt at " + host.socket()
                    + " through SSH: " + e.getMessage(), e);
        }
    }

    /** The libvirt connection, once {@link #openLibvirt} succeeded; for calls on the host's platform thread. */
    Connect libvirt() {
        return libvirt;
    }

    /** Whether the SSH connection is up and libvirt considers its connection alive. Native. */
    boolean alive() {
        try {
            return libvirt != null && ssh.isConnected() && libvirt.isAlive();
        } catch (LibvirtException e) {
            return false;
        }
    }

    /** Cuts the forward and the SSH connection; any thread, idempotent, never blocks on the host. */
    void sever() {
        disconnect(ssh); // first: the channels then end at once instead of awaiting the server's close
        forward.close();
    }

    /** Closes libvirt's connection, then the forward and SSH. Native; idempotent. */
    void close() {
        if (libvirt != null) {
            closeQuietly(libvirt);
        }
        sever();
    }

    /**
     * sshj's settings for every client: keepalive on, and its logging off. sshj logs each connect
     * at info and each refused key exchange several times at error; the failure reaches the caller
     * as a tagged exception instead and is logged once where it is handled.
     */
    static DefaultConfig sshConfig() {
        DefaultConfig config = new DefaultConfig();
        config.setKeepAliveProvider(KeepAliveProvider.KEEP_ALIVE);
        config.setLoggerFactory(QUIET);
        return config;
    }

    private static SSHClient client(SshMaterial material, Duration timeout) {
        SSHClient ssh = new SSHClient(sshConfig());
        ssh.addHostKeyVerifier(material.knownHosts()); // the only verifier: no trust on first use
        int millis = (int) Math.min(Integer.MAX_VALUE, Math.max(1, timeout.toMillis()));
        ssh.setConnectTimeout(millis);
        ssh.getTransport().setTimeoutMs(millis);
        ssh.getConnection().setTimeoutMs(millis);
        ssh.getConnection().getKeepAlive().setKeepAliveInterval(SSH_KEEPALIVE_SECONDS);
        return ssh;
    }

    private static void connect(SSHClient ssh, ProviderConfig.KvmHost host, SshMaterial material)
            throws DialFailure {
        String at = host.address() + ":" + host.port();
        try {
            ssh.connect(host.address(), host.port());
        } catch (SSHException e) {
            // sshj's own errors come after the TCP connect: key exchange, a host key not in known_hosts.
            throw new DialFailure(DialFailure.Stage.SSH_HANDSHAKE, "SSH handshake with " + at + " failed: "
                    + e.getMessage(), e);
        } catch (IOException e) {
            throw new DialFailure(DialFailure.Stage.TCP, "cannot connect to " + at + ": " + e, e);
        }
        try {
            ssh.authPublickey(host.user(), material.key());
        } catch (IOException e) {
            throw new DialFailure(DialFailure.Stage.SSH_HANDSHAKE, "user " + host.user() + " not accepted by " + at
                    + ": " + e.getMessage(), e);
        }
    }

    private static SocketForward forward(SSHClient ssh, ProviderConfig.KvmHost host) throws DialFailure {
        try {
            return SocketForward.start(ssh.getConnection(), host.socket());
        } catch (IOException e) {
            throw new DialFailure(DialFailure.Stage.LIBVIRT_CONNECT, "cannot create the local socket: " + e, e);
        }
    }

    private static void closeQuietly(Connect libvirt) {
        try {
            libvirt.close();
        } catch (LibvirtException e) {
            // a severed or dead connection: libvirt frees it all the same
        }
    }

    private static void disconnect(SSHClient ssh) {
        try {
            ssh.disconnect();
        } catch (IOException e) {
            // the transport is gone either way
        }
    }
}
