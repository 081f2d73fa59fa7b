package com.example.crawl.egress.provider.kvm;

import org.libvirt.Library;
import org.libvirt.LibvirtException;

/**
 * libvirt's default event loop, which its client needs for keepalive: without a registered loop
 * {@code virConnectSetKeepAlive} refuses, and with one that nobody runs the keepalive timer of an
 * idle connection never fires. The loop is process-wide in libvirt itself (one registration per
 * process, before the first connection is opened), so this class is a process-wide switch too:
 * {@link #ensureRunning} registers it and starts one platform daemon thread that runs it for the
 * rest of the process's life. Idempotent and thread-safe.
 */
final class LibvirtEventLoop {

    private static boolean running; // guarded by LibvirtEventLoop.class

    private LibvirtEventLoop() {
    }

    /** Registers and starts the loop unless it runs already. Native: call on a platform thread. */
    static synchronized void ensureRunning() throws LibvirtException {
        if (running) {
            return;
        }
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
