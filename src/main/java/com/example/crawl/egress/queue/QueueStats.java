package com.example.crawl.egress.queue;

import java.time.Duration;

/**
 * A {@link WorkQueue}'s state at one instant, for metrics read at scrape time.
 *
 * @param depth          keys added and not yet handed out: those ready and those added again
 *                       while being processed (client-go's depth)
 * @param processing     keys handed to workers and not yet done
 * @param unfinishedWork the sum of how long each key in {@code processing} has been processed
 * @param longestRunning how long the oldest key in {@code processing} has been processed; zero if none
 */
public record QueueStats(int depth, int processing, Duration unfinishedWork, Duration longestRunning) { }
