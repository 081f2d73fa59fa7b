/**
 * The {@code kubernetes} provider ({@code docs/providers/kubernetes.md}): a hardened Squid pod per
 * Proxy in the operator's own cluster, with its hashed password file in a Secret the pod owns,
 * labelled with its owner's UID, read by polling and never watched. API errors are sorted into
 * the provider's error classes; the check lists one managed pod.
 *
 * <p>Imports of this project only {@code api}, {@code provider} and {@code config}, never another
 * provider ({@code LayeringTest}). Uses the operator's one client with a request timeout of its
 * own and never closes it; starts no threads beyond one per check.
 */
package com.example.crawl.egress.provider.kubernetes;
