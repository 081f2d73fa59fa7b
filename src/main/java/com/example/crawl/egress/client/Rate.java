package com.example.crawl.egress.client;

/**
 * A client's lease rate: {@code perSecond} lease requests a second on average, {@code burst} at once.
 */
public record Rate(double perSecond, int burst) {

    public Rate {
        if (!(perSecond > 0) || Double.isInfinite(perSecond) || burst < 1) {
            throw new IllegalArgumentException("a rate is above 0 with a burst of at least 1: " + perSecond + ", " + burst);
        }
    }
}
