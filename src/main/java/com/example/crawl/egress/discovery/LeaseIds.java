package com.example.crawl.egress.discovery;

/**
 * The shape of the lease ids the store issues: 32 lowercase hex characters (128 random bits).
 * Anything else in the {@code {id}} segment (upper case, percent-encoding, {@code ..}) is not
 * looked up at all: it cannot be a lease.
 */
final class LeaseIds {

    static final int LENGTH = 32;

    private LeaseIds() {
    }

    static boolean isWellFormed(String id) {
        if (id.length() != LENGTH) {
            return false;
        }
        for (int i = 0; i < LENGTH; i++) {
            char c = id.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
                return false;
            }
        }
        return true;
    }
}
