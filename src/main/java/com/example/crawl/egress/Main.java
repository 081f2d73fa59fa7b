package com.example.crawl.egress;

/** Composition root. */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
    }
}
