/**
 * The orphan sweeper: every {@code --gc-interval}, deletes the provider instances and the Secrets
 * the operator made for Proxies that no longer exist, which a crash between a create and the
 * status write that records it leaves behind. It deletes only what it can prove is an orphan: it
 * names an owner UID, its age is known and at least {@code --gc-min-age}, and no Proxy just listed
 * from the API server has that UID (one being deleted counts as live). A failed Proxy list skips
 * the sweep.
 *
 * <p>Runs on the leader only. Reads the API server itself, never the informer cache, and reaches
 * backends only through the {@code provider} contract: no concrete provider, no controller, no
 * other component ({@code LayeringTest}).
 */
package com.example.crawl.egress.gc;
