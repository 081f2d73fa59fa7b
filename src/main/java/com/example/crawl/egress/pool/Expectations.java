package com.example.crawl.egress.pool;

import com.example.crawl.egress.cache.PoolKey;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * The members this process created or deleted and its cache does not show yet, per pool, as
 * client-go's ReplicaSet controller keeps them: a create is counted as a member (a {@link Member}
 * ghost) and a delete as gone until the cache catches up, or until {@link #TTL} passes, so a slow
 * watch never makes the controller create or delete twice. Held in memory only: a new process
 * starts from a fresh list of the API, which shows every write that was made.
 *
 * <p>Thread-safe; a pool's entries are only changed by the worker that holds its key.
 */
final class Expectations {

    /** How long an expectation waits for the cache; client-go waits as long. */
    static final Duration TTL = Duration.ofMinutes(5);

    private record Created(String uid, String placement, String hash, Instant at) { }

    private final Map<PoolKey, Map<String, Created>> creates = new ConcurrentHashMap<>();
    private final Map<PoolKey, Map<String, Instant>> deletes = new ConcurrentHashMap<>();

    /** @param uid the UID of the pool the member was created for */
    void created(PoolKey pool, String uid, String name, String placement, String hash, Instant at) {
        creates.computeIfAbsent(pool, k -> new ConcurrentHashMap<>()).put(name, new Created(uid, placement, hash, at));
    }

    void createFailed(PoolKey pool, String name) {
        creates.getOrDefault(pool, Map.of()).remove(name);
    }

    void deleted(PoolKey pool, String name, Instant at) {
        deletes.computeIfAbsent(pool, k -> new ConcurrentHashMap<>()).put(name, at);
    }

    /**
     * Forgets what the cache now shows ({@code cached}: whether a name is one of the pool's cached
     * members that are not being deleted), what is older than {@link #TTL}, and creates for an earlier
     * pool of this name (another {@code uid}): what they made is deleted as that pool's, not counted
     * as this one's. Asks {@code cached} only of the names awaited, never of every member.
     */
    void observe(PoolKey pool, String uid, Predicate<String> cached, Instant now) {
        creates.getOrDefault(pool, Map.of()).entrySet().removeIf(e -> cached.test(e.getKey())
                || !e.getValue().uid().equals(uid) || expired(e.getValue().at(), now));
        deletes.getOrDefault(pool, Map.of()).entrySet()
                .removeIf(e -> !cached.test(e.getKey()) || expired(e.getValue(), now));
    }

    /** The created members the cache does not show yet. */
    List<Member> ghosts(PoolKey pool) {
        return creates.getOrDefault(pool, Map.of()).entrySet().stream()
                .map(e -> Member.ghost(e.getKey(), e.getValue().placement(), e.getValue().hash(), e.getValue().at()))
                .toList();
    }

    /**
     * The members this process deleted that the cache still shows alive: a read-only view, which
     * follows later deletes and observations; read it before the pass deletes.
     */
    Set<String> deleting(PoolKey pool) {
        return Collections.unmodifiableSet(deletes.getOrDefault(pool, Map.of()).keySet());
    }

    /** Whether anything is still awaited for the pool. */
    boolean pending(PoolKey pool) {
        return !creates.getOrDefault(pool, Map.of()).isEmpty() || !deletes.getOrDefault(pool, Map.of()).isEmpty();
    }

    void forget(PoolKey pool) {
        creates.remove(pool);
        deletes.remove(pool);
    }

    private static boolean expired(Instant at, Instant now) {
        return !at.plus(TTL).isAfter(now);
    }
}
