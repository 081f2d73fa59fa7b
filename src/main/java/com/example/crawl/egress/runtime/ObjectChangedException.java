package com.example.crawl.egress.runtime;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;

/**
 * A write was refused because the object changed since it was read (409 Conflict) or is gone
 * (404). Not a failure: the next reconcile reads the newer object and decides again.
 */
public final class ObjectChangedException extends Exception {

    public ObjectChangedException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * What a failed write means: 409 and 404 become this exception ("read again"), to be thrown by
     * the caller; anything else is a real failure and is rethrown here.
     */
    public static ObjectChangedException orRethrow(KubernetesClientException e) {
        if (e.getCode() == HttpURLConnection.HTTP_CONFLICT || e.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
            return new ObjectChangedException(e.getStatus() != null && e.getStatus().getMessage() != null
                    ? e.getStatus().getMessage() : e.getMessage(), e);
        }
        throw e;
    }
}
