/**
 * The orphan sweeper: deletes provider instances that carry this operator's owner label, are
 * older than the minimum age and belong to no existing Proxy.
 *
 * <p>Deletes only what it can prove is an orphan; a failed Proxy list skips the sweep. Runs on
 * the leader only.
 */
package com.example.crawl.egress.gc;
