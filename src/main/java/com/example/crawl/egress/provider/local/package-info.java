/**
 * The {@code local} provider: one Squid child process per Proxy on loopback, for local mode and
 * tests, with its state kept in a directory so that a restarted operator finds its processes.
 *
 * <p>Imports only {@code api}, {@code provider} and {@code config}; never another provider.
 */
package com.example.crawl.egress.provider.local;
