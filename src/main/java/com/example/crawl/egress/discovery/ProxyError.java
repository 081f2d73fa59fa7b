package com.example.crawl.egress.discovery;

import java.util.Locale;
import java.util.Optional;

/**
 * What went wrong with a request through a proxy, in the words of RFC 9209's Proxy Error Types
 * (the {@code error} parameter of a {@code Proxy-Status} header): what a {@code failed} report may
 * name in its {@code error}. A closed list, so that it can label a metric.
 */
public enum ProxyError {
    DNS_TIMEOUT, DNS_ERROR, DESTINATION_NOT_FOUND, DESTINATION_UNAVAILABLE, DESTINATION_IP_PROHIBITED,
    DESTINATION_IP_UNROUTABLE, CONNECTION_REFUSED, CONNECTION_TERMINATED, CONNECTION_TIMEOUT,
    CONNECTION_READ_TIMEOUT, CONNECTION_WRITE_TIMEOUT, CONNECTION_LIMIT_REACHED, TLS_PROTOCOL_ERROR,
    TLS_CERTIFICATE_ERROR, TLS_ALERT_RECEIVED, HTTP_REQUEST_ERROR, HTTP_REQUEST_DENIED, HTTP_RESPONSE_INCOMPLETE,
    HTTP_RESPONSE_HEADER_SECTION_SIZE, HTTP_RESPONSE_HEADER_SIZE, HTTP_RESPONSE_BODY_SIZE,
    HTTP_RESPONSE_TRAILER_SECTION_SIZE, HTTP_RESPONSE_TRAILER_SIZE, HTTP_RESPONSE_TRANSFER_CODING,
    HTTP_RESPONSE_CONTENT_CODING, HTTP_RESPONSE_TIMEOUT, HTTP_UPGRADE_FAILED, HTTP_PROTOCOL_ERROR,
    PROXY_INTERNAL_RESPONSE, PROXY_INTERNAL_ERROR, PROXY_CONFIGURATION_ERROR, PROXY_LOOP_DETECTED;

    /** The RFC's token: {@code connection_refused}, ... */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The error of an RFC 9209 token, exactly as the RFC writes it (lower case). */
    public static Optional<ProxyError> fromWire(String token) {
        for (ProxyError e : values()) {
            if (e.wireName().equals(token)) {
                return Optional.of(e);
            }
        }
        return Optional.empty();
    }
}
