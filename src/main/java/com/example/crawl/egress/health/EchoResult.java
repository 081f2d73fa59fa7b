package com.example.crawl.egress.health;

import java.util.Objects;

/**
 * What one egress echo fetch found: the address the echo saw the request come from, or why none.
 */
public sealed interface EchoResult {

    /**
     * @param address the egress address, normalised: IPv4 as a dotted quad (an IPv4-mapped IPv6
     *                address becomes one), IPv6 in the compressed lower-case form of RFC 5952
     */
    record Learned(String address) implements EchoResult {
        public Learned {
            Objects.requireNonNull(address, "address");
        }
    }

    /** @param message what failed, for people: the step and the cause, or what the body held */
    record Failed(String message) implements EchoResult {
        public Failed {
            Objects.requireNonNull(message, "message");
        }
    }
}
