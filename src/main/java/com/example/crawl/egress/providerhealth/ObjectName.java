package com.example.crawl.egress.providerhealth;

import java.util.regex.Pattern;

/**
 * Whether a provider's name can name its {@code ProviderHealth}: the API server accepts a custom
 * resource's name only when it is a DNS subdomain (RFC 1123: lowercase letters, digits, '-' and
 * '.', each dot-separated label starting and ending with a letter or digit, at most 253
 * characters). The providers config allows any name, so the monitor has to ask.
 */
final class ObjectName {

    private static final int LIMIT = 253;
    private static final Pattern SUBDOMAIN =
            Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

    private ObjectName() {
    }

    static boolean isValid(String name) {
        return name != null && name.length() <= LIMIT && SUBDOMAIN.matcher(name).matches();
    }
}
