/**
 * The {@code local} provider, for local mode and tests: one Squid child process per Proxy on a
 * loopback address of its own, with its configuration, password file and facts kept in a private
 * directory per instance, so that a restarted operator finds and adopts its processes. A process
 * is recognised by its command line before it is counted Running or stopped, so a recycled pid is
 * never killed.
 *
 * <p>Imports of this project only {@code provider} and {@code config}, never another provider
 * ({@code LayeringTest}).
 */
package com.example.crawl.egress.provider.local;
