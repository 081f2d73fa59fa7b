package com.example.crawl.egress.proxy;

import com.example.crawl.egress.provider.Instance;
import com.example.crawl.egress.provider.InstanceState;
import com.example.crawl.egress.provider.ListsForDrift;
import com.example.crawl.egress.provider.Provider;
import com.example.crawl.egress.provider.ProviderException;
import com.example.crawl.egress.provider.ProviderRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the reconciler reads an instance it last saw Running: the drift check of a Ready Proxy.
 *
 * <p>For most providers that is a {@link Provider#get}. For a provider that
 * {@link ListsForDrift}, the reads of all Proxies share one {@link Provider#listByTag} per drift
 * interval: the first drift check after the listing has grown {@code maxAge} old takes a new one
 * (the others wait for it), and every check until then looks its instance up there. The listing
 * only ever confirms: an instance it shows Running at the address the Proxy already has is
 * answered from it; an instance it shows in any other state, at another address or not at all is
 * read again with {@code get}, so that nothing is replaced or re-created on an old listing's word.
 * A listing that fails leaves no answers, and the checks fall back to {@code get} until the next
 * one is due.
 *
 * <p>The price is staleness in one direction only: an instance that stops just after a listing
 * was taken is seen as Running until the next one, so a drift check notices it at most about two
 * drift intervals after the change rather than one (see docs/decisions.md). The health probes,
 * which go through the proxy every few seconds, are what notices a dead proxy first.
 *
 * <p>Thread-safe: the reconcile workers share it; each provider's listing has its own lock.
 */
final class DriftReads {

    private static final Logger LOG = LoggerFactory.getLogger(DriftReads.class);

    private final ProviderRegistry providers;
    private final Duration maxAge;
    private final Clock clock;
    private final ConcurrentMap<String, Listing> listings = new ConcurrentHashMap<>();

    /**
     * @param maxAge how long a listing answers drift checks: the drift poll interval, so that a
     *               stable fleet costs one listing per interval
     */
    DriftReads(ProviderRegistry providers, Duration maxAge, Clock clock) {
        this.providers = Objects.requireNonNull(providers, "providers");
        this.maxAge = Objects.requireNonNull(maxAge, "maxAge");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * The instance {@code providerID} of provider {@code name}, last seen Running at
     * {@code address}; with no {@code address} (it was not last seen Running), always a
     * {@code get}.
     *
     * @throws ProviderException as {@link Provider#get}, including {@code NotFound}
     */
    Instance read(String name, Provider provider, String providerID, String address) throws ProviderException {
        if (address == null || !providers.listsForDrift(name)) {
            return provider.get(providerID);
        }
        Instance listed = listings.computeIfAbsent(name, n -> new Listing(n, provider)).find(providerID);
        if (listed != null && listed.state() == InstanceState.Running && address.equals(listed.ip())) {
            return listed;
        }
        return provider.get(providerID);
    }

    /** One provider's latest listing, by providerID, and when it was asked for. */
    private final class Listing {

        private final String name;
        private final Provider provider;
        private final ReentrantLock lock = new ReentrantLock();
        private Instant askedAt;
        private Map<String, Instance> instances = Map.of();

        Listing(String name, Provider provider) {
            this.name = name;
            this.provider = provider;
        }

        /** The listed instance, after listing again if this listing is due; null when not listed. */
        Instance find(String providerID) {
            lock.lock();
            try {
                Instant now = clock.instant();
                if (askedAt == null || !now.isBefore(askedAt.plus(maxAge))) {
                    // Its age counts from the request, not the answer: the answer may be that old.
                    askedAt = now;
                    instances = list();
                }
                return instances.get(providerID);
            } finally {
                lock.unlock();
            }
        }

        private Map<String, Instance> list() {
            List<Instance> listed;
            try {
                listed = provider.listByTag();
            } catch (ProviderException e) {
                LOG.atWarn().addKeyValue("provider", name).addKeyValue("error", e.getMessage())
                        .log("Listing for drift checks failed; checking each instance on its own until the next listing");
                return Map.of();
            }
            Map<String, Instance> byId = new HashMap<>(listed.size() * 2);
            listed.forEach(instance -> byId.put(instance.providerID(), instance));
            return byId;
        }
    }
}
