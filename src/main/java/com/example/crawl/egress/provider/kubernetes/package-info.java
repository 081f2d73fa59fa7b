/**
 * The {@code kubernetes} provider: Squid pods in this cluster, labelled with their owner's UID,
 * observed by polling, never watched.
 *
 * <p>Imports only {@code api}, {@code provider} and {@code config}; never another provider.
 */
package com.example.crawl.egress.provider.kubernetes;
