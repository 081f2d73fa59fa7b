package com.example.crawl.egress.provider.kvm;

import net.schmizz.sshj.common.SSHPacket;
import net.schmizz.sshj.connection.Connection;
import net.schmizz.sshj.connection.channel.direct.AbstractDirectChannel;

/**
 * An SSH channel to a UNIX socket on the server, OpenSSH's {@code direct-streamlocal@openssh.com}
 * (what {@code ssh -L local.sock:/remote.sock} opens). sshj has no such channel; the open request
 * is the standard one followed by the socket's path and two reserved fields, as OpenSSH's
 * PROTOCOL file specifies.
 *
 * <p>Use as any sshj direct channel: {@link #open()} (blocks until the server accepts or refuses;
 * a missing socket is refused with an {@code OpenFailException}), then its streams, then
 * {@link #close()}. Not thread-safe beyond what sshj's channels are: one reader, one writer.
 */
final class StreamLocalChannel extends AbstractDirectChannel {

    static final String TYPE = "direct-streamlocal@openssh.com";

    private final String socketPath;

    StreamLocalChannel(Connection connection, String socketPath) {
        super(connection, TYPE);
        this.socketPath = socketPath;
    }

    @Override
    protected SSHPacket buildOpenReq() {
        return super.buildOpenReq()
                .putString(socketPath)
                .putString("") // reserved
                .putUInt32(0); // reserved
    }
}
