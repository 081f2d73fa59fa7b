package com.example.crawl.egress.discovery;

import com.example.crawl.egress.client.Client;
import com.example.crawl.egress.client.ClientRegistry;
import com.example.crawl.egress.lease.LeaseService;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends the leases of clients that are no longer registered (their Secret was deleted, or became
 * invalid), so that revoking a client also ends its proxy access: the lease list of each proxy no
 * longer names those leases, and their credentials stop working. Looks every
 * {@link #PERIOD}, on whichever replica serves leases at that moment (elsewhere
 * {@link LeaseService#endClientLeases} does nothing), so a failover between the deletion and the
 * next look does not keep them; and only once the client Secrets are listed, before which no
 * client is registered.
 *
 * <p>Lifecycle: {@link #start} once; {@link #close} is idempotent.
 */
public final class ClientRevocation implements AutoCloseable {

    /** How often it looks: well inside the grace within which a revoked client's access ends. */
    static final Duration PERIOD = Duration.ofMillis(500);
    private static final Logger LOG = LoggerFactory.getLogger(ClientRevocation.class);

    private final ClientRegistry clients;
    private final LeaseService leases;
    private final BooleanSupplier synced;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("client-revocation").daemon().factory());

    /** @param synced whether the client Secrets have been listed */
    public ClientRevocation(ClientRegistry clients, LeaseService leases, BooleanSupplier synced) {
        this.clients = clients;
        this.leases = leases;
        this.synced = synced;
    }

    public void start() {
        timer.scheduleWithFixedDelay(this::sweep, PERIOD.toMillis(), PERIOD.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** One look; returns how many leases it ended. */
    int sweep() {
        if (!synced.getAsBoolean()) {
            return 0;
        }
        try {
            Set<String> registered = clients.clients().stream().map(Client::name).collect(Collectors.toSet());
            int ended = leases.endClientLeases(registered);
            if (ended > 0) {
                LOG.atInfo().addKeyValue("leases", ended).log("Ended the leases of discovery clients no longer registered");
            }
            return ended;
        } catch (RuntimeException e) {
            LOG.atWarn().setCause(e).log("Ending the leases of removed discovery clients failed; trying again");
            return 0;
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
