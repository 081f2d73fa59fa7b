/**
 * The work queue between informers and reconcile workers, with client-go's contract: a key is
 * queued at most once, never handed to two workers at once, queued again once when it was added
 * while being processed, delayed on a heap, and rate-limited per key and globally.
 *
 * <p>Owns keys and timing only; knows nothing of Kubernetes objects. Its one background thread
 * waits on a condition, never sleeps, and reads the injected monotonic clock, so tests drive the
 * package with a fake one. Imports of this project only {@code clock} ({@code LayeringTest}).
 */
package com.example.crawl.egress.queue;
