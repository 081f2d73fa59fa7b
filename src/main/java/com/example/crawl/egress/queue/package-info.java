/**
 * The work queue between informers and reconcile workers, with client-go's contract: a key is
 * queued at most once, never handed to two workers at once, re-queued when it was added while
 * being processed, delayed on a heap, and rate-limited per key and globally.
 *
 * <p>Owns keys and timing only; knows nothing of Kubernetes objects. Must not import any other
 * component. Time is injected: due times and token refills read a {@link
 * com.example.crawl.egress.clock.NanoClock}, and the one background thread (the queue's delay
 * thread) waits on a condition, never sleeps, so tests drive the whole package with a fake clock.
 * Public: {@code WorkQueue}, {@code RateLimiter} (with its default controller limiter) and {@code
 * NanoClock}; the limiter implementations stay package-private behind the factory.
 */
package com.example.crawl.egress.queue;
