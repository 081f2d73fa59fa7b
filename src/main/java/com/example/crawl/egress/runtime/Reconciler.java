package com.example.crawl.egress.runtime;

/**
 * Brings the world in line with one object's spec: what a {@link Workers} loop calls for each key
 * it takes off the queue. A reconcile reads the newest cached object by key, never an object
 * handed in, and says in its {@link Outcome} when it wants to look again.
 *
 * <p>Implementations are thread-safe for distinct keys: the queue never hands one key to two
 * workers at once, but different keys reconcile concurrently. A thrown exception is a bug; the
 * loop logs it and retries the key with backoff.
 */
@FunctionalInterface
public interface Reconciler<K extends ObjectKey> {

    Outcome reconcile(K key);
}
