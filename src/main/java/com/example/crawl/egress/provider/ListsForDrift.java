package com.example.crawl.egress.provider;

/**
 * Marks a provider whose backend rations reads (Compute Engine allows a fixed number of read
 * requests per minute per project): the reconciler then answers the drift checks of its Running
 * instances from one {@link Provider#listByTag} per drift interval, shared by every Proxy, instead
 * of one {@link Provider#get} each. Whatever the listing shows as changed is still confirmed with
 * a {@code get} before the reconciler acts on it.
 *
 * <p>The {@link ProviderRegistry} notes it before decoration, like {@link Checker}; the provider
 * adds no method for it.
 */
public interface ListsForDrift {
}
