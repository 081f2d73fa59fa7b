/**
 * The {@code gcp} provider ({@code docs/providers/gcp.md}): a Compute Engine VM per Proxy, made and
 * observed through four calls (insert, get, delete, aggregated list) that do not wait for
 * operations, each one attempt under a deadline, since the work queue owns retries. Ownership is
 * in the VM's labels, including the installation's {@code --cluster-name}, which every listing
 * filters on, so that operators of several clusters can share a project without one's orphan
 * sweep judging another's VMs. Compute Engine rations reads, so the provider asks the reconciler
 * to serve drift checks from one shared listing per interval; it is also its own checker.
 *
 * <p>Imports of this project only {@code api}, {@code provider} and {@code config}, never another
 * provider ({@code LayeringTest}). Starts no threads beyond its client's and one per check.
 */
package com.example.crawl.egress.provider.gcp;
