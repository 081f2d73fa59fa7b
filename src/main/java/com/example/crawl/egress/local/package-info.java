/**
 * Local mode ({@code --local}), the README's first command: an embedded Kubernetes API (the
 * fabric8 mock server in CRUD mode, with the CRDs and the discovery answers {@code kubectl}
 * needs), a kubeconfig for it, a loopback probe target, sample Proxies on the {@code local}
 * provider, and the banner that says what to curl.
 *
 * <p>Only {@code Main} uses this package; nothing in it runs outside local mode.
 */
package com.example.crawl.egress.local;
