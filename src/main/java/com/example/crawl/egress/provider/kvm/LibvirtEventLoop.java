package com.example.crawl.egress.provider.kvm;

import org.libvirt.Connect;
import org.libvirt.Library;
import org.libvirt.LibvirtException;
import org.libvirt.jna.Libvirt;

/**
 * libvirt's default event loop, which its client needs for keepalive: libvirt asks a client that
 * enables keepalive to register an event loop and run it, since the pings of an idle connection
 * are timers on that loop. The loop is process-wide in libvirt itself (one registration per
 * process, before the first connection is opened), so this class is a process-wide switch too:
 * {@link #ensureRunning} registers it and starts one platform daemon thread that runs it for the
 * rest of the process's life. It also silences libvirt's default error printer, which writes every
 * error to stderr: errors reach the caller as {@code LibvirtException}s, and are logged where they
 * are handled. Idempotent and thread-safe.
 */
final class LibvirtEventLoop {

    /** Held here so that JNA's native stub is never collected while libvirt may call it. */
    private static final Libvirt.VirErrorCallback IGNORE_ERRORS = (userData, error) -> { };

    private static boolean running; // guarded by LibvirtEventLoop.class

    private LibvirtEventLoop() {
    }

    /** Registers and starts the loop unless it runs already. Native: call on a platform thread. */
    static synchronized void ensureRunning() throws LibvirtException {
        if (running) {
            return;
        }
        Connect.setErrorCallback(IGNORE_ERRORS);
        Library.initEventLoop();
        Thread.ofPlatform().daemon().name("libvirt-event-loop").start(LibvirtEventLoop::run);
        running = true;
    }

    private static void run() {
        try {
            Library.runEventLoop();
        } catch (LibvirtException | InterruptedException e) {
            // Only stopEventLoop or an interrupt ends it, and neither is ever sent; a libvirt error
            // here leaves idle connections without keepalive, which the per-call deadlines cover.
        }
    }
}
