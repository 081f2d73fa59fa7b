package com.example.crawl.egress.provider;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * An in-memory {@link Provider} for tests, keeping the whole contract: idempotent create and
 * delete, {@code NotFound} from {@code get}, thread-safety. The test plays the backend: it moves
 * instances through their states, scripts faults and holds calls at a {@link Gate}.
 *
 * <ul>
 *   <li>providerIDs are {@code fake/<name>}; {@code create} makes a {@code Provisioning}
 *       instance with no IP, owned by the request's UID, created at the injected clock's time;
 *       a create of an existing name returns that instance unchanged, whatever its state;</li>
 *   <li>{@code delete} does what a cloud's asynchronous delete does: the instance turns
 *       {@code Terminated} and stays visible (to {@link #find} and {@code listByTag}) until the
 *       next {@code get} of it, which removes it and throws {@code NotFound}. An instance the test
 *       marked {@code Terminated} itself is reported as {@code Terminated} until it is deleted;</li>
 *   <li>each call first runs the hook set for its {@link Op}, then counts, then throws a scripted
 *       fault if one is due (one-shot faults before a standing one), then acts.</li>
 * </ul>
 *
 * <p>Thread-safe: state is guarded by {@code this}, and a hook runs outside the lock so that a
 * held call does not block the others.
 */
public final class FakeProvider implements Provider {

    /** The four calls, for faults, hooks and counters. */
    public enum Op { CREATE, GET, DELETE, LIST }

    /** Runs at the start of a call, on the caller's thread; may block. */
    @FunctionalInterface
    public interface Hook {
        void run() throws InterruptedException;
    }

    private final Clock clock;
    private final Map<String, Instance> instances = new TreeMap<>(); // guarded by this
    private final Map<String, CreateRequest> requests = new TreeMap<>(); // guarded by this
    private final Set<String> deleting = new HashSet<>(); // guarded by this
    private final Map<Op, Deque<ProviderException>> failNext = new EnumMap<>(Op.class); // guarded by this
    private final Map<Op, ProviderException> failAlways = new EnumMap<>(Op.class); // guarded by this
    private final Map<Op, Integer> calls = new EnumMap<>(Op.class); // guarded by this
    private final Map<Op, Hook> hooks = new EnumMap<>(Op.class); // guarded by this

    public FakeProvider(Clock clock) {
        this.clock = clock;
    }

    @Override
    public Instance create(CreateRequest req) throws ProviderException {
        enter(Op.CREATE);
        synchronized (this) {
            String id = providerID(req.name());
            Instance existing = instances.get(id);
            if (existing != null) {
                return existing;
            }
            Instance made = new Instance(id, req.name(), req.ownerUid(), InstanceState.Provisioning, null, clock.instant());
            instances.put(id, made);
            requests.put(id, req);
            return made;
        }
    }

    @Override
    public Instance get(String providerID) throws ProviderException {
        enter(Op.GET);
        synchronized (this) {
            Instance instance = instances.get(providerID);
            if (instance == null || deleting.contains(providerID)) {
                remove(providerID);
                throw new ProviderException.NotFound("instance " + providerID + " not found");
            }
            return instance;
        }
    }

    @Override
    public void delete(String providerID) throws ProviderException {
        enter(Op.DELETE);
        synchronized (this) {
            Instance instance = instances.get(providerID);
            if (instance != null) {
                instances.put(providerID, instance.with(InstanceState.Terminated, instance.ip()));
                deleting.add(providerID);
            }
        }
    }

    @Override
    public List<Instance> listByTag() throws ProviderException {
        enter(Op.LIST);
        synchronized (this) {
            return List.copyOf(instances.values());
        }
    }

    /** The providerID this fake gives an instance called {@code name}. */
    public static String providerID(String name) {
        return "fake/" + name;
    }

    /** The instance as the backend holds it now, without counting a call; empty once removed. */
    public synchronized Optional<Instance> find(String providerID) {
        return Optional.ofNullable(instances.get(providerID));
    }

    /** Every instance, ordered by providerID, without counting a call. */
    public synchronized List<Instance> instances() {
        return List.copyOf(instances.values());
    }

    /** The request that created the instance, if this fake created it. */
    public synchronized Optional<CreateRequest> request(String providerID) {
        return Optional.ofNullable(requests.get(providerID));
    }

    /** The backend finishes every delete it was asked for: those instances are gone, as after a {@code get}. */
    public synchronized void finishDeletes() {
        List.copyOf(deleting).forEach(this::remove);
    }

    /** Puts an instance in place as if someone else had created it (an orphan, an unlabelled VM). */
    public synchronized void seed(Instance instance) {
        instances.put(instance.providerID(), instance);
        deleting.remove(instance.providerID());
    }

    /** The backend finished booting the instance: Running at {@code ip}. */
    public void markRunning(String providerID, String ip) {
        move(providerID, InstanceState.Running, ip);
    }

    /** The instance stopped by itself (a preempted spot VM, a crashed pod); its IP is gone. */
    public void markStopped(String providerID) {
        move(providerID, InstanceState.Stopped, null);
    }

    /** The backend terminated the instance on its own; it stays visible until deleted. */
    public void markTerminated(String providerID) {
        move(providerID, InstanceState.Terminated, null);
    }

    /** Makes the next call of {@code op} throw {@code fault}; several queue up in order. */
    public synchronized void failNext(Op op, ProviderException fault) {
        failNext.computeIfAbsent(op, k -> new ArrayDeque<>()).add(fault);
    }

    /** Makes every call of {@code op} throw {@code fault} (after any one-shot faults) until cleared. */
    public synchronized void failAlways(Op op, ProviderException fault) {
        failAlways.put(op, fault);
    }

    /** Drops every scripted fault of {@code op}. */
    public synchronized void clearFaults(Op op) {
        failNext.remove(op);
        failAlways.remove(op);
    }

    /** Drops every scripted fault. */
    public synchronized void clearFaults() {
        failNext.clear();
        failAlways.clear();
    }

    /** Runs {@code hook} at the start of every call of {@code op}; null removes it. */
    public synchronized void onCall(Op op, Hook hook) {
        if (hook == null) {
            hooks.remove(op);
        } else {
            hooks.put(op, hook);
        }
    }

    /** Calls of {@code op} so far, those that failed included. */
    public synchronized int calls(Op op) {
        return calls.getOrDefault(op, 0);
    }

    private void enter(Op op) throws ProviderException {
        Hook hook;
        synchronized (this) {
            hook = hooks.get(op);
        }
        if (hook != null) {
            try {
                hook.run();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ProviderException.Transient("interrupted while held", e);
            }
        }
        synchronized (this) {
            calls.merge(op, 1, Integer::sum);
            Deque<ProviderException> once = failNext.get(op);
            ProviderException fault = once == null || once.isEmpty() ? failAlways.get(op) : once.poll();
            if (fault != null) {
                throw fault;
            }
        }
    }

    private synchronized void move(String providerID, InstanceState state, String ip) {
        Instance instance = instances.get(providerID);
        if (instance == null) {
            throw new IllegalArgumentException("no instance " + providerID + "; have " + instances.keySet());
        }
        instances.put(providerID, instance.with(state, ip));
    }

    private void remove(String providerID) {
        instances.remove(providerID);
        requests.remove(providerID);
        deleting.remove(providerID);
    }

    /**
     * A hook that holds each call until the test releases it, so that a test can act while a call
     * is in flight without sleeping. Every wait is bounded by {@link #BOUND}, which only guards
     * against a hung test.
     */
    public static final class Gate implements Hook {
        static final Duration BOUND = Duration.ofSeconds(10);

        private final CountDownLatch arrived = new CountDownLatch(1);
        private final CountDownLatch released = new CountDownLatch(1);

        @Override
        public void run() throws InterruptedException {
            arrived.countDown();
            if (!released.await(BOUND.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("gate never released");
            }
        }

        /** Waits until a call has reached the gate; fails the test after {@link #BOUND}. */
        public void awaitArrival() throws InterruptedException {
            if (!arrived.await(BOUND.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("no call reached the gate within " + BOUND);
            }
        }

        /** Lets every held call, and every later one, through. */
        public void release() {
            released.countDown();
        }
    }
}
