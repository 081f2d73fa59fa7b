/**
 * Local mode ({@code --local}), the README's first command: a private state directory and its
 * lock, the {@code local} provider, an embedded Kubernetes API (fabric8's mock server with the
 * CRDs, plus what {@code kubectl} expects of an API server) behind a token of its own, a
 * kubeconfig that carries it, a loopback probe target, the sample Proxies and pool, and the
 * banner that says what to curl.
 *
 * <p>Used only by the composition root, and only with {@code --local}; everything after it runs
 * as in a cluster. Its own servers (the embedded API, its kubectl front, the probe target) listen
 * on loopback only.
 */
package com.example.crawl.egress.local;
