package com.example.crawl.egress.health;

/** Why a probe failed. The names appear in {@code Healthy} condition messages and metrics labels. */
public enum FailureReason {
    /** The proxy's host name did not resolve. */
    UnknownHost,
    /** No TCP connection to the proxy before the deadline. */
    ConnectTimeout,
    /** The proxy's host refused or could not be reached (connection refused, no route). */
    ConnectRefused,
    /** The proxy wants credentials (407). A proxy that answers 407 is never counted alive. */
    ProxyAuthRequired,
    /** The proxy answered the {@code CONNECT} with a status other than 2xx (and not 407). */
    ProxyRefused,
    /** The TLS handshake with the target, inside the tunnel, failed (certificate, host name, protocol). */
    TlsFailed,
    /** The target answered through the proxy with a status not in {@code expectedStatus}. */
    UnexpectedStatus,
    /** Connected, but no complete answer before the deadline. */
    Timeout,
    /** An answer that is not HTTP, too large, or cut short. */
    MalformedResponse
}
