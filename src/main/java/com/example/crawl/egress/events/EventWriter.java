package com.example.crawl.egress.events;

import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.api.model.events.v1.EventSeries;

/**
 * The two API calls the recorder makes. Both block; a failure is a
 * {@code KubernetesClientException} carrying the HTTP status (0 when no answer came), or another
 * unchecked exception when the request could not be sent.
 */
interface EventWriter {

    /** Creates {@code event} in its namespace; a taken name is 409. */
    void create(Event event);

    /** Sets the {@code series} of an existing Event, leaving the rest alone; a missing Event is 404. */
    void setSeries(String namespace, String name, EventSeries series);
}
