package com.example.crawl.egress.replication;

import com.example.crawl.egress.crash.FaultPlan;
import com.example.crawl.egress.replication.StateSecrets.Conflict;
import com.example.crawl.egress.replication.StateSecrets.Leader;
import com.example.crawl.egress.replication.StateSecrets.Stored;
import com.example.crawl.egress.runtime.ObjectChangedException;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Arrays;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The state and key Secrets in memory, as the API server keeps them for {@link StateSecrets}, with
 * the crash suite's {@link FaultPlan} around every call: a write names the
 * {@code resourceVersion} it is based on and is refused (409) unless that is the current one; a
 * write that changes nothing keeps the version (the API server's no-op update); an update of a
 * Secret that is not there is a 404. Faults: a crash before or after each write, a 500 before it,
 * a 504 after it was applied, a 409 that is someone else's write just before (the version moves,
 * the content stays, as a {@code kubectl label} makes), and a 500 on a read.
 *
 * <p>Every applied write of the state is told to {@code applied}: what the Secret holds is what a
 * kill cannot take away. The mirror is not modelled: {@link #informer} is refused, so no replica
 * of the suite calls {@code start()}. Single-threaded, like the suite.
 */
final class MemoryStateStore extends StateStore {

    private static final String NAMESPACE = "ops";
    private static final String ID = "egress-proxies-operator";

    private final FaultPlan plan;
    private final Consumer<Stored> applied;
    private Optional<Stored> state = Optional.empty();
    private long version;
    private byte[] key;

    MemoryStateStore(FaultPlan plan, Consumer<Stored> applied) {
        this.plan = plan;
        this.applied = applied;
    }

    @Override
    String namespace() {
        return NAMESPACE;
    }

    @Override
    String stateName() {
        return ID + "-lease-state";
    }

    @Override
    String keyName() {
        return ID + "-lease-key";
    }

    @Override
    Optional<Stored> read() {
        plan.read("state.read");
        return state;
    }

    /** The state as stored, without faults: what the suite's checks read. */
    Optional<Stored> stored() {
        return state;
    }

    @Override
    String write(Optional<String> resourceVersion, long term, Optional<Leader> leader, byte[] bytes)
            throws Conflict {
        boolean[] reached = {false};
        try {
            // A create (no Secret yet) cannot meet someone else's write in this world: only updates conflict.
            return plan.write("state.write", state.isPresent(), () -> {
                reached[0] = true;
                return apply(resourceVersion, term, leader, bytes);
            });
        } catch (ObjectChangedException e) {
            if (!reached[0]) {
                touch(); // the plan's 409: someone else wrote just before
            }
            throw new Conflict();
        }
    }

    private String apply(Optional<String> basis, long term, Optional<Leader> leader, byte[] bytes)
            throws ObjectChangedException {
        if (basis.isPresent() && state.isEmpty()) {
            throw new KubernetesClientException("secrets \"" + stateName() + "\" not found", 404, null);
        }
        Optional<String> current = state.map(Stored::resourceVersion);
        if (!current.equals(basis)) {
            throw new ObjectChangedException("resourceVersion " + basis.orElse("(none)") + " is not "
                    + current.orElse("(none)"), null);
        }
        Stored now = state.orElse(null);
        if (now != null && now.term() == term && now.leader().equals(leader)
                && Arrays.equals(now.state().orElse(null), bytes)) {
            return now.resourceVersion();
        }
        Stored next = new Stored(Long.toString(++version), StateSecrets.FORMAT, term, leader,
                Optional.of(bytes.clone()));
        state = Optional.of(next);
        applied.accept(next);
        return next.resourceVersion();
    }

    /** Someone else's write that changes no data (a label): only the version moves. */
    private void touch() {
        state = state.map(s -> new Stored(Long.toString(++version), s.format(), s.term(), s.leader(), s.state()));
    }

    @Override
    byte[] key(Supplier<byte[]> newKey) {
        plan.read("key.read");
        if (key == null) {
            byte[] made = newKey.get();
            FaultPlan.unconditional(() -> plan.write("key.create", false, () -> {
                storeKey(made);
                return null;
            }));
        }
        return key.clone();
    }

    @Override
    void storeKey(byte[] value) {
        if (key != null) {
            throw new KubernetesClientException("secrets \"" + keyName() + "\" already exists", 409, null);
        }
        key = value.clone();
    }

    @Override
    SharedIndexInformer<Secret> informer(ResourceEventHandler<Secret> handler) {
        throw new UnsupportedOperationException("the lease crash suite does not model the mirror");
    }
}
