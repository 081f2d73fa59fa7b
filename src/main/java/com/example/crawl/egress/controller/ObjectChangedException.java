package com.example.crawl.egress.controller;

/**
 * A write was refused because the object changed since it was read (409 Conflict) or is gone
 * (404). Not a failure: the next reconcile reads the newer object and decides again.
 */
public final class ObjectChangedException extends Exception {

    public ObjectChangedException(String message, Throwable cause) {
        super(message, cause);
    }
}
