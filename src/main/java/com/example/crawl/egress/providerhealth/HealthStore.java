package com.example.crawl.egress.providerhealth;

import com.example.crawl.egress.api.ProviderHealth;
import java.util.List;
import java.util.Optional;

/**
 * The {@code ProviderHealth} objects as the monitor reads and writes them: always from the API
 * server, never from a cache. Objects are cluster-scoped and named after their provider.
 * Failures other than {@link Changed} are unchecked and end the one write that met them.
 */
interface HealthStore {

    /** The label that marks an object as written by this operator; cleanup deletes only these. */
    String MANAGED_LABEL = "crawl.example.com/managed";

    /** The object named {@code name} as stored now, if any. */
    Optional<ProviderHealth> get(String name);

    /**
     * Creates the object {@code name}, labelled {@link #MANAGED_LABEL}, without a status.
     *
     * @throws Changed when an object of that name exists already (409)
     */
    ProviderHealth create(String name) throws Changed;

    /**
     * Replaces the status of {@code object}, on the condition that it is still at the object's
     * {@code resourceVersion}.
     *
     * @throws Changed when it changed since it was read (409) or is gone (404)
     */
    ProviderHealth updateStatus(ProviderHealth object) throws Changed;

    /** Every object labelled {@link #MANAGED_LABEL}. */
    List<ProviderHealth> listOurs();

    /** Deletes the object {@code name}; one already gone is no failure. */
    void delete(String name);

    /** The object is not (or no longer) what the write assumed: read it again. Not a failure. */
    final class Changed extends Exception {
        Changed(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
