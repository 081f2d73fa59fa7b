package com.example.crawl.egress.client;

import com.example.crawl.egress.clock.NanoClock;
import com.example.crawl.egress.queue.TokenBucket;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The clients discovery knows, as their Secrets say now, and each one's lease-rate bucket. A
 * token finds its client by its SHA-256 digest (a lookup whose time depends on the digest, from
 * which nothing of the token can be learnt), confirmed with {@link MessageDigest#isEqual}.
 *
 * <p>Thread-safe: lookups read concurrent maps and never wait for the informer that writes them.
 */
public final class ClientRegistry {

    /** A registered client and its bucket, if it has a rate. */
    private record Entry(Client client, TokenBucket<Void> bucket) { }

    private final NanoClock clock;
    private final Map<String, Entry> byName = new ConcurrentHashMap<>();
    private final Map<ByteBuffer, Entry> byDigest = new ConcurrentHashMap<>();

    public ClientRegistry(NanoClock clock) {
        this.clock = clock;
    }

    /** The client whose token this is; empty for any other string. */
    public Optional<Client> authenticate(String token) {
        byte[] digest = ClientSecret.digest(token);
        Entry entry = byDigest.get(ByteBuffer.wrap(digest));
        return entry != null && MessageDigest.isEqual(digest, entry.client().tokenDigest())
                ? Optional.of(entry.client()) : Optional.empty();
    }

    /**
     * Registers {@code client}, replacing one of the same name: its old token stops working at
     * once. Its bucket is kept when its rate is unchanged, so that editing another key of its
     * Secret does not hand it a fresh burst; a new rate starts a full bucket.
     *
     * @return false, registering nothing, when another client has the same token: a token must
     *         name one client
     */
    public synchronized boolean put(Client client) {
        ByteBuffer digest = ByteBuffer.wrap(client.tokenDigest());
        Entry holder = byDigest.get(digest);
        if (holder != null && !holder.client().name().equals(client.name())) {
            return false;
        }
        Entry before = byName.get(client.name());
        TokenBucket<Void> bucket = before != null && before.client().rate().equals(client.rate()) ? before.bucket()
                : client.rate().map(r -> new TokenBucket<Void>(r.perSecond(), r.burst(), clock)).orElse(null);
        Entry entry = new Entry(client, bucket);
        if (before != null) {
            byDigest.remove(ByteBuffer.wrap(before.client().tokenDigest()));
        }
        byName.put(client.name(), entry);
        byDigest.put(digest, entry);
        return true;
    }

    /** Forgets the client {@code name}, if registered: its token stops working at once. */
    public synchronized void remove(String name) {
        Entry before = byName.remove(name);
        if (before != null) {
            byDigest.remove(ByteBuffer.wrap(before.client().tokenDigest()), before);
        }
    }

    /** Whether a client of this name is registered. */
    public boolean has(String name) {
        return byName.containsKey(name);
    }

    /** Every registered client. */
    public Collection<Client> clients() {
        return List.copyOf(byName.values().stream().map(Entry::client).toList());
    }

    /**
     * Takes one lease request from {@code client}'s rate bucket: empty when taken (or it has no
     * rate), else how long until one is there (nothing taken).
     */
    public Optional<Duration> takeLease(Client client) {
        Entry entry = byName.get(client.name());
        return entry == null || entry.bucket() == null ? Optional.empty() : entry.bucket().tryTake();
    }
}
