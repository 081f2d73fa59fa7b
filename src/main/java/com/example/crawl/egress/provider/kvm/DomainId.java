package com.example.crawl.egress.provider.kvm;

import com.example.crawl.egress.provider.ProviderException;
import java.util.Objects;

/**
 * Where a domain lives: the host (a name from the provider's config) and the domain's name,
 * written as the providerID {@code hosts/<host>/domains/<name>}. The host is part of the id so
 * that {@code get} and {@code delete} still reach the old domain after an edit of
 * {@code spec.kvm.host}, while the replacement is under way; it is also why a host can be added
 * to the config without touching existing Proxies.
 */
record DomainId(String host, String name) {

    private static final String HOSTS = "hosts";
    private static final String DOMAINS = "domains";

    DomainId {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(name, "name");
    }

    /**
     * The domain a providerID names.
     *
     * @throws ProviderException.Permanent when {@code providerID} is not of this provider's form,
     *                                     which no retry can change
     */
    static DomainId parse(String providerID) throws ProviderException.Permanent {
        String[] parts = providerID == null ? new String[0] : providerID.split("/", -1);
        if (parts.length != 4 || !parts[0].equals(HOSTS) || !parts[2].equals(DOMAINS)
                || parts[1].isEmpty() || parts[3].isEmpty()) {
            throw new ProviderException.Permanent("providerID \"" + providerID
                    + "\" is not a domain of the kvm provider (hosts/<host>/domains/<name>)");
        }
        return new DomainId(parts[1], parts[3]);
    }

    /** The providerID: {@code hosts/<host>/domains/<name>}. */
    String providerID() {
        return HOSTS + "/" + host + "/" + DOMAINS + "/" + name;
    }

    @Override
    public String toString() {
        return providerID();
    }
}
