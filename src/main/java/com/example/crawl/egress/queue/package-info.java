/**
 * The work queue between informers and reconcile workers, with client-go's contract: a key is
 * queued at most once, never handed to two workers at once, re-queued when it was added while
 * being processed, delayed on a heap, and rate-limited per key and globally.
 *
 * <p>Owns keys and timing only; knows nothing of Kubernetes objects. Must not import any other
 * component. Time is injected.
 */
package com.example.crawl.egress.queue;
