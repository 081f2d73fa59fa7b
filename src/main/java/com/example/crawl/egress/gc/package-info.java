/**
 * The orphan sweeper: on the leader, every {@code --gc-interval}, deletes the provider instances
 * and the Secrets the operator made for Proxies that no longer exist. Something is deleted only
 * when it names its owning Proxy's UID, is older than {@code --gc-min-age}, and that UID is not
 * among the Proxies just listed from the API server (those being deleted count as live); a failed
 * Proxy list skips the sweep. A provider that keeps resources of its own
 * ({@code CollectsUnused}: the kvm provider's base images) is then asked to delete those unused
 * for its configured time.
 *
 * <p>Runs on the leader only. Reads the API server itself, never the informer cache, and reaches
 * backends only through the {@code provider} contract: no concrete provider, no controller, no
 * other component ({@code LayeringTest}).
 */
package com.example.crawl.egress.gc;
