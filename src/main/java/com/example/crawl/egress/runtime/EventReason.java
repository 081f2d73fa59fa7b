package com.example.crawl.egress.runtime;

/**
 * Why a controller records an Event. Each controller owns its reasons as an enum that implements
 * this; the constant's name is the Event's {@code reason} (CamelCase, as the API expects), and each
 * reason has exactly one type and one action, so every occurrence of a reason about one object
 * belongs to one series. docs/operations.md says when each is emitted.
 */
public interface EventReason {

    /** The Event's {@code type}: the two values the API accepts. */
    enum Type { Normal, Warning }

    /** The Event's {@code reason}. */
    String name();

    Type type();

    /** The Event's {@code action}: what the controller was doing when this happened. */
    String action();
}
