package com.example.crawl.egress.health;

import com.example.crawl.egress.api.ProxyCredentials;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/**
 * One probe's inputs: which proxy to go through and what to fetch through it.
 *
 * @param proxyHost          the proxy's address (an IP, or a host name for an external endpoint)
 * @param proxyPort          the proxy's port
 * @param url                an absolute {@code http} or {@code https} URL fetched through the proxy
 * @param expectedStatus     status codes of the target's answer that count as success
 * @param timeout            the whole probe's deadline, from the first connect to the status line
 * @param insecureSkipVerify accept any certificate and host name from an https target
 * @param credentials        sent to the proxy as {@code Proxy-Authorization: Basic}, or null to
 *                           send none; {@link ProxyCredentials#toString()} keeps the password out
 *                           of this record's
 */
public record ProbeTarget(
        String proxyHost, int proxyPort, URI url, Set<Integer> expectedStatus, Duration timeout,
        boolean insecureSkipVerify, ProxyCredentials credentials) {

    /** A target whose proxy demands no credentials. */
    public ProbeTarget(String proxyHost, int proxyPort, URI url, Set<Integer> expectedStatus, Duration timeout,
            boolean insecureSkipVerify) {
        this(proxyHost, proxyPort, url, expectedStatus, timeout, insecureSkipVerify, null);
    }

    public ProbeTarget {
        Objects.requireNonNull(proxyHost, "proxyHost");
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(timeout, "timeout");
        expectedStatus = Set.copyOf(expectedStatus);
        if (!url.isAbsolute() || url.getHost() == null
                || !("http".equals(url.getScheme()) || "https".equals(url.getScheme()))) {
            throw new IllegalArgumentException("probe url must be an absolute http or https URL: " + url);
        }
        if (proxyPort < 1 || proxyPort > 65_535) {
            throw new IllegalArgumentException("proxy port out of range: " + proxyPort);
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive: " + timeout);
        }
    }

    /** Whether the target is fetched through a {@code CONNECT} tunnel with TLS inside. */
    public boolean tunnelled() {
        return "https".equals(url.getScheme());
    }

    /** The target's port, with the scheme's default when the URL names none. */
    public int targetPort() {
        return url.getPort() != -1 ? url.getPort() : tunnelled() ? 443 : 80;
    }
}
