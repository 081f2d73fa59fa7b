/**
 * Monotonic time as one type of its own: the work queue and its limiters, the worker loop, the
 * lease store and ban ledger, the health engine's schedule, provider health's deadlines and the
 * request and provider timings take it by constructor, so that tests drive a fake one. Wall time
 * (status timestamps, Events, a lease's {@code expiresAt}) is a {@code java.time.Clock}, injected
 * the same way.
 *
 * <p>Imports nothing of this project ({@code LayeringTest}).
 */
package com.example.crawl.egress.clock;
