package com.example.crawl.egress.proxy;

import com.example.crawl.egress.clock.FakeClock;
import com.example.crawl.egress.crash.FaultPlan;
import com.example.crawl.egress.provider.FakeProvider;
import com.example.crawl.egress.provider.Instance;
import com.example.crawl.egress.provider.InstanceState;
import com.example.crawl.egress.provider.Provider;
import com.example.crawl.egress.provider.ProviderRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * The crash suite's providers: three {@link FakeProvider}s configured as {@code alpha},
 * {@code beta} (whose drift checks come from a listing) and {@code gamma}, each seen by the
 * operator through a {@link FaultyProvider}. The backend side moves on its own: an instance boots
 * {@link #BOOT} after its create, and the suite may stop one as a preempted VM would be. Survives
 * operator crashes.
 */
final class Backend {

    static final List<String> NAMES = List.of("alpha", "beta", "gamma");
    static final Duration BOOT = Duration.ofSeconds(20);

    /** One instance and the provider holding it. */
    record Placed(String provider, Instance instance) { }

    private final FakeClock clock;
    private final Map<String, FakeProvider> fakes = new LinkedHashMap<>();
    private final ProviderRegistry registry;
    private int addresses;

    Backend(FakeClock clock, FaultPlan plan) {
        this.clock = clock;
        Map<String, Provider> seen = new LinkedHashMap<>();
        for (String name : NAMES) {
            FakeProvider fake = new FakeProvider(clock);
            fakes.put(name, fake);
            seen.put(name, name.equals("beta") ? new FaultyProvider.Listing(name, fake, plan)
                    : new FaultyProvider(name, fake, plan));
        }
        this.registry = Rig.registry(seen);
    }

    /** The providers as the operator (and the GC sweep) sees them: faulty, configured by name. */
    ProviderRegistry registry() {
        return registry;
    }

    /** Every instance booted long enough ago is Running at an address of its own. */
    void boot() {
        for (FakeProvider fake : fakes.values()) {
            for (Instance i : fake.instances()) {
                if (i.state() == InstanceState.Provisioning && !i.createdAt().plus(BOOT).isAfter(clock.instant())) {
                    addresses++;
                    fake.markRunning(i.providerID(), "10." + (addresses >> 16 & 255) + "." + (addresses >> 8 & 255)
                            + "." + (addresses & 255));
                }
            }
        }
    }

    /** Stops one Running instance, picked by {@code random}; returns what it stopped, or null. */
    Placed stopOne(SplittableRandom random) {
        List<Placed> running = all().stream().filter(p -> p.instance().state() == InstanceState.Running).toList();
        if (running.isEmpty()) {
            return null;
        }
        Placed victim = running.get(random.nextInt(running.size()));
        fakes.get(victim.provider()).markStopped(victim.instance().providerID());
        return victim;
    }

    /** Every delete asked for is done: those instances are gone. */
    void finishDeletes() {
        fakes.values().forEach(FakeProvider::finishDeletes);
    }

    /** The image the instance was created with, if a create made it. */
    Optional<String> image(Placed placed) {
        return fakes.get(placed.provider()).request(placed.instance().providerID())
                .map(r -> r.kubernetes() == null ? null : r.kubernetes().image());
    }

    /** Every instance of every provider, in provider order. */
    List<Placed> all() {
        List<Placed> out = new ArrayList<>();
        fakes.forEach((name, fake) -> fake.instances().forEach(i -> out.add(new Placed(name, i))));
        return out;
    }
}
