package com.example.crawl.egress.api;

/**
 * One CEL rule of a CRD, as its validation tests exercise it: a spec that keeps the rule and one
 * that breaks it, which the API server must refuse with {@code message}.
 */
record RuleCase(String message, String valid, String invalid) {
    @Override
    public String toString() {
        return message + " <- " + invalid;
    }
}
