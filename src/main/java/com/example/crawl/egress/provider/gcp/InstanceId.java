package com.example.crawl.egress.provider.gcp;

import com.example.crawl.egress.provider.ProviderException;
import java.util.Objects;

/**
 * Where an instance lives: its zone and name, written as the providerID
 * {@code zones/<zone>/instances/<name>}. The zone is part of the id so that {@code get} and
 * {@code delete} still find the old instance after an edit of {@code spec.gcp.zone}, while the
 * replacement is under way; the project is not, since it is the provider's own setting.
 */
record InstanceId(String zone, String name) {

    private static final String ZONES = "zones";
    private static final String INSTANCES = "instances";

    InstanceId {
        Objects.requireNonNull(zone, "zone");
        Objects.requireNonNull(name, "name");
    }

    /**
     * The instance a providerID names.
     *
     * @throws ProviderException.Permanent when {@code providerID} is not of this provider's form,
     *                                     which no retry can change
     */
    static InstanceId parse(String providerID) throws ProviderException.Permanent {
        String[] parts = providerID == null ? new String[0] : providerID.split("/", -1);
        if (parts.length != 4 || !parts[0].equals(ZONES) || !parts[2].equals(INSTANCES)
                || parts[1].isEmpty() || parts[3].isEmpty()) {
            throw new ProviderException.Permanent("providerID \"" + providerID
                    + "\" is not an instance of the gcp provider (zones/<zone>/instances/<name>)");
        }
        return new InstanceId(parts[1], parts[3]);
    }

    /** The providerID: {@code zones/<zone>/instances/<name>}. */
    String providerID() {
        return ZONES + "/" + zone + "/" + INSTANCES + "/" + name;
    }

    @Override
    public String toString() {
        return providerID();
    }
}
