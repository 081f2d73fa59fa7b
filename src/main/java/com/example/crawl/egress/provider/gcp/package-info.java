/**
 * The {@code gcp} provider: Compute Engine instances through four calls (insert, get, delete,
 * aggregated list), fire-and-forget, with ownership carried in instance labels.
 *
 * <p>Imports only {@code api}, {@code provider} and {@code config}; never another provider.
 */
package com.example.crawl.egress.provider.gcp;
