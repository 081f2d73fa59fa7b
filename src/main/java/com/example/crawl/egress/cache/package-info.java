/**
 * The informer cache: Proxies, ProxyPools and the two kinds of labelled Secret Proxies name
 * (cloud-init and credentials), each watched once, with the indexes that map a Secret or a member
 * Proxy back to what depends on it, and the keys the work queues hold. Event handlers only turn
 * events into keys; everyone else reads objects from memory, never the network.
 *
 * <p>Runs on every replica from start, so that a standby serves discovery from a full cache and
 * a new leader finds every key already queued. Reads only: writes nothing to the API server.
 * Imports of this project only the {@code api} types it caches and the runtime's key type.
 */
package com.example.crawl.egress.cache;
