/**
 * Local mode ({@code --local}), the README's first command: an embedded Kubernetes API (the
 * fabric8 mock server in CRUD mode with the CRDs, plus what {@code kubectl} expects of an API
 * server: discovery, tables, OpenAPI v3 and schema checks on writes, core Events, streamed
 * watches) that demands a token of its own on every request, a private kubeconfig that carries
 * it, a loopback probe target, sample Proxies on the {@code local} provider, and the banner that
 * says what to curl.
 *
 * <p>Only {@code Main} uses this package; nothing in it runs outside local mode.
 */
package com.example.crawl.egress.local;
