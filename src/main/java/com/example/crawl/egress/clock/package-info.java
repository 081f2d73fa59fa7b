/**
 * Monotonic time, as one injected type: every deadline, backoff, expiry and duration is measured on
 * it, so that tests drive a fake one and no component reads {@code System.nanoTime()} itself. Wall
 * time (for status timestamps and Events) is a {@code java.time.Clock}, injected the same way.
 */
package com.example.crawl.egress.clock;
