package com.example.crawl.egress.provider.kvm;

import com.example.crawl.egress.config.ProviderConfig;
import com.example.crawl.egress.provider.ProviderException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.libvirt.LibvirtException;

/**
 * One host's connection and the single slot that guards it: at most one call uses the host at a
 * time, and only the slot's holder dials, redials or closes the connection.
 *
 * <p><b>Calls.</b> {@link #call} waits for the slot until the caller's deadline (then
 * {@code Transient} "busy"), dials if there is no live connection, and runs the work on one of
 * the host's platform threads (libvirt is native; the caller is usually a virtual thread). A call
 * still running at its deadline is cut: the forward and SSH are severed, which makes the blocked
 * native call fail, and the caller gets {@code Transient} at once; the thread then closes the
 * connection and frees the slot, and the next call redials. {@link #probe} is the health check's
 * variant: at its deadline the call is abandoned and the connection left alone, since reconciles
 * share it; the abandoned call keeps the slot until it returns (libvirt's keepalive bounds that),
 * and while it is out every further probe answers at once. Timeouts carry a
 * {@link TimeoutException} cause; dial failures a {@link DialFailure}.
 *
 * <p>Thread-safe. {@link #close} is idempotent and severs whatever is running.
 */
final class HostSlot implements AutoCloseable {

    private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

    private final ProviderConfig.KvmHost host;
    private final SshMaterial material;
    private final Clock clock;
    private final Semaphore slot = new Semaphore(1, true);
    private final ExecutorService natives;
    private final AtomicBoolean probeAbandoned = new AtomicBoolean();
    private final AtomicInteger dials = new AtomicInteger();
    private volatile HostConnection connection; // written only by the slot's holder
    private volatile boolean closed;

    HostSlot(ProviderConfig.KvmHost host, SshMaterial material, Clock clock) {
        this.host = host;
        this.material = material;
        this.clock = clock;
        this.natives = Executors.newCachedThreadPool(
                Thread.ofPlatform().daemon().name("kvm-" + host.name() + "-", 0).factory());
    }

    /** Runs {@code work} on the host's connection before {@code deadline}; cuts the connection if it runs late. */
    <T> T call(Instant deadline, LibvirtCall<T> work) throws ProviderException, LibvirtException {
        return run(deadline, work, false);
    }

    /** Like {@link #call}, but a late call is abandoned, not cut; answers at once while one is abandoned. */
    <T> T probe(Instant deadline, LibvirtCall<T> work) throws ProviderException, LibvirtException {
        if (probeAbandoned.get()) {
            throw timeout("an earlier check is still waiting for libvirt");
        }
        return run(deadline, work, true);
    }

    /** How many times this host was dialed, successfully or not. */
    /* test */ int dials() {
        return dials.get();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        HostConnection current = connection;
        if (current != null) {
            current.sever(); // a running call fails now instead of holding up the close
        }
        try {
            natives.execute(this::closeWhenFree);
        } catch (RejectedExecutionException e) {
            // cannot happen before shutdown, which only this method calls
        }
        natives.shutdown();
        try {
            natives.awaitTermination(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private <T> T run(Instant deadline, LibvirtCall<T> work, boolean abandonLate)
            throws ProviderException, LibvirtException {
        if (closed) {
            throw new ProviderException.Transient("host " + host.name() + ": the provider is shutting down");
        }
        if (!acquire(deadline)) {
            throw timeout("busy: the connection slot did not come free before the deadline");
        }
        SlotCall<T> call = new SlotCall<>(work, deadline);
        Future<T> result;
        try {
            result = natives.submit(() -> runHoldingSlot(call));
        } catch (RejectedExecutionException e) {
            slot.release();
            throw new ProviderException.Transient("host " + host.name() + ": the provider is shutting down");
        }
        return await(result, call, deadline, abandonLate);
    }

    private boolean acquire(Instant deadline) throws ProviderException {
        try {
            return slot.tryAcquire(remainingNanos(deadline), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProviderException.Transient("host " + host.name() + ": interrupted waiting for the connection", e);
        }
    }

    private <T> T await(Future<T> result, SlotCall<T> call, Instant deadline, boolean abandonLate)
            throws ProviderException, LibvirtException {
        try {
            return result.get(remainingNanos(deadline), TimeUnit.NANOSECONDS);
        } catch (TimeoutException | InterruptedException e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            if (!call.giveUp(abandonLate ? probeAbandoned : null)) {
                return finished(result); // it finished in the meantime
            }
            if (!abandonLate && call.connection() != null) {
                call.connection().sever(); // the blocked native call fails; its thread then closes the rest
            }
            if (abandonLate) {
                throw timeout("the check did not finish before its deadline; abandoned, the connection kept");
            }
            throw timeout("the call did not finish before its deadline; the connection was cut and will be redialed");
        } catch (ExecutionException e) {
            throw unwrap(e);
        }
    }

    private <T> T finished(Future<T> result) throws ProviderException, LibvirtException {
        try {
            return result.get();
        } catch (ExecutionException e) {
            throw unwrap(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProviderException.Transient("host " + host.name() + ": interrupted", e);
        }
    }

    /** On a platform thread, holding the slot: (re)dials if needed, runs the work, and frees the slot. */
    private <T> T runHoldingSlot(SlotCall<T> call) throws DialFailure, LibvirtException {
        try {
            HostConnection current = liveConnection(call);
            if (call.givenUp()) {
                return null; // given up while dialing; the caller has its answer already
            }
            try {
                return call.work.call(current.libvirt());
            } catch (LibvirtException e) {
                if (!current.alive()) {
                    drop();
                }
                throw e;
            }
        } finally {
            if (call.finishWasCut() || closed) {
                drop(); // cut late, or closing: nothing on it can be trusted
            }
            slot.release();
        }
    }

    private HostConnection liveConnection(SlotCall<?> call) throws DialFailure {
        HostConnection current = connection;
        if (current != null && current.alive()) {
            call.attach(current);
            return current;
        }
        drop();
        Duration left = Duration.ofNanos(Math.max(1, remainingNanos(call.deadline)));
        dials.incrementAndGet();
        HostConnection dialed = HostConnection.dialSsh(host, material, left);
        call.attach(dialed); // from here a late caller can cut a libvirt open that hangs
        dialed.openLibvirt(); // on failure it closes itself
        connection = dialed;
        return dialed;
    }

    private void drop() {
        HostConnection current = connection;
        connection = null;
        if (current != null) {
            current.close();
        }
    }

    private void closeWhenFree() {
        slot.acquireUninterruptibly();
        try {
            drop();
        } finally {
            slot.release();
        }
    }

    private ProviderException unwrap(ExecutionException e) throws LibvirtException {
        return switch (e.getCause()) {
            case LibvirtException l -> throw l;
            case DialFailure d -> new ProviderException.Transient("host " + host.name() + ": " + d.getMessage(), d);
            case RuntimeException r -> throw r;
            case Error r -> throw r;
            default -> ProviderException.classify(e.getCause());
        };
    }

    private ProviderException timeout(String what) {
        return new ProviderException.Transient("host " + host.name() + ": " + what, new TimeoutException(what));
    }

    private long remainingNanos(Instant deadline) {
        return Math.max(0, Duration.between(clock.instant(), deadline).toNanos());
    }
}
