package com.example.crawl.egress.provider.kvm;

import com.example.crawl.egress.provider.CheckCall;
import com.example.crawl.egress.provider.ProviderException;
import java.util.concurrent.TimeoutException;
import org.libvirt.Error.ErrorNumber;
import org.libvirt.LibvirtException;

/**
 * The kvm checker's reasons: a failed check of one host sorted by where it failed, so that the
 * reason says whom to ask (the network, sshd's keys, libvirtd, the pool). Pure; the reasons are
 * {@code ProviderHealth} API values.
 *
 * <ul>
 *   <li>no answer before the deadline, or an earlier check still waiting: {@value CheckCall#TIMEOUT};</li>
 *   <li>dial stage {@code tcp}: {@value #SSH_UNREACHABLE};</li>
 *   <li>dial stage {@code ssh-handshake} (host key not in known_hosts, user key refused):
 *       {@value #SSH_HANDSHAKE_FAILED};</li>
 *   <li>dial stage {@code libvirt-connect} (no libvirtd behind the socket, forwarding refused),
 *       or a pooled connection that broke under the call (RPC or system error):
 *       {@value #LIBVIRT_UNREACHABLE};</li>
 *   <li>the configured pool does not exist: {@value #POOL_NOT_FOUND}; exists but is not running:
 *       {@value #POOL_INACTIVE};</li>
 *   <li>any other libvirt error: {@value #LIBVIRT_ERROR}.</li>
 * </ul>
 */
final class KvmCheck {

    static final String SSH_UNREACHABLE = "SSHUnreachable";
    static final String SSH_HANDSHAKE_FAILED = "SSHHandshakeFailed";
    static final String LIBVIRT_UNREACHABLE = "LibvirtUnreachable";
    static final String POOL_NOT_FOUND = "PoolNotFound";
    static final String POOL_INACTIVE = "PoolInactive";
    static final String LIBVIRT_ERROR = "LibvirtError";

    private KvmCheck() {
    }

    /** The reason for a check that failed with {@code e} (from {@code HostPool.probe} or the work). */
    static String reason(Throwable e) {
        if (e instanceof LibvirtException l) {
            // A connection that broke under the call: libvirtd went away since the last dial.
            return LibvirtFailure.is(l, ErrorNumber.VIR_ERR_RPC) || LibvirtFailure.is(l, ErrorNumber.VIR_ERR_SYSTEM_ERROR)
                    || LibvirtFailure.is(l, ErrorNumber.VIR_ERR_NO_CONNECT)
                    || LibvirtFailure.is(l, ErrorNumber.VIR_ERR_INVALID_CONN) ? LIBVIRT_UNREACHABLE : LIBVIRT_ERROR;
        }
        if (timedOut(e)) {
            return CheckCall.TIMEOUT;
        }
        return DialFailure.stageOf(e).map(stage -> switch (stage) {
            case TCP -> SSH_UNREACHABLE;
            case SSH_HANDSHAKE -> SSH_HANDSHAKE_FAILED;
            // ssh-material fails the start, so a check never sees it; if it did, libvirt is out of reach
            case LIBVIRT_CONNECT, SSH_MATERIAL -> LIBVIRT_UNREACHABLE;
        }).orElse(e instanceof ProviderException ? LIBVIRT_UNREACHABLE : LIBVIRT_ERROR);
    }

    private static boolean timedOut(Throwable e) {
        for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof TimeoutException) {
                return true;
            }
        }
        return false;
    }
}
