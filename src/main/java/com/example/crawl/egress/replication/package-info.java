/**
 * The lease service across replicas. The leader serves every lease call from its lease store and
 * keeps the store's state in a Secret of the leader-election namespace, acknowledging a report only
 * once a write holds it; the other replicas mirror that Secret and name the leader that discovery
 * passes lease calls on to. Writes are fenced by {@code resourceVersion} and a term, so a replaced
 * leader stops at its next write, and a hand edit or deletion is written over with an Event.
 *
 * <p>Runs on every replica; serves and writes on the leader only. Imports of this project only
 * {@code lease}, {@code clock} and the runtime's Event seam, and only the composition root imports
 * it ({@code LayeringTest}).
 */
package com.example.crawl.egress.replication;
