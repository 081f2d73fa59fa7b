package com.example.crawl.egress.replication;

import com.example.crawl.egress.replication.StateSecrets.Conflict;
import com.example.crawl.egress.replication.StateSecrets.Leader;
import com.example.crawl.egress.replication.StateSecrets.Stored;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Where {@link ReplicatedLeases} keeps the lease state and the signing key: the two Secrets
 * ({@link StateSecrets}), or a test's store in memory. An abstract class rather than an interface
 * so that its methods stay package-private on the public {@link StateSecrets}.
 *
 * <p>The contract a store keeps: a {@link #write} names the {@code resourceVersion} it is based
 * on and is refused ({@link Conflict}) unless that is the current one (empty: none exists yet);
 * a write that succeeded returns the new version; anything else that fails is a
 * {@code KubernetesClientException}, after which the write may or may not have been applied.
 */
abstract class StateStore {

    abstract String namespace();

    abstract String stateName();

    abstract String keyName();

    /** The state as the store holds it now (not a cache); empty when there is none. */
    abstract Optional<Stored> read();

    /** Writes the state based on {@code resourceVersion}; returns the new one. */
    abstract String write(Optional<String> resourceVersion, long term, Optional<Leader> leader, byte[] state)
            throws Conflict;

    /** The signing key: read, or made with {@code newKey} and stored when there is none. */
    abstract byte[] key(Supplier<byte[]> newKey);

    /** Stores {@code key} as the signing key; refused when one is there. */
    abstract void storeKey(byte[] key);

    /** Watches the state and the key; not started. */
    abstract SharedIndexInformer<Secret> informer(ResourceEventHandler<Secret> handler);
}
