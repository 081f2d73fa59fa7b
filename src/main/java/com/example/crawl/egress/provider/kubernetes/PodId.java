package com.example.crawl.egress.provider.kubernetes;

import com.example.crawl.egress.provider.ProviderException;
import java.util.Objects;

/**
 * Where a proxy pod lives: its namespace and name, written as the providerID
 * {@code namespaces/<namespace>/pods/<name>}. The namespace is part of the id because it is not
 * always the Proxy's own (the provider may put every pod in one namespace), and because a later
 * change of the provider's namespace setting must not lose track of pods already made.
 */
record PodId(String namespace, String name) {

    private static final String NAMESPACES = "namespaces";
    private static final String PODS = "pods";

    PodId {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(name, "name");
    }

    /**
     * The pod a providerID names.
     *
     * @throws ProviderException.Permanent when {@code providerID} is not of this provider's form,
     *                                     which no retry can change
     */
    static PodId parse(String providerID) throws ProviderException.Permanent {
        String[] parts = providerID == null ? new String[0] : providerID.split("/", -1);
        if (parts.length != 4 || !parts[0].equals(NAMESPACES) || !parts[2].equals(PODS)
                || parts[1].isEmpty() || parts[3].isEmpty()) {
            throw new ProviderException.Permanent("providerID \"" + providerID
                    + "\" is not a pod of the kubernetes provider (namespaces/<namespace>/pods/<name>)");
        }
        return new PodId(parts[1], parts[3]);
    }

    /** The providerID: {@code namespaces/<namespace>/pods/<name>}. */
    String providerID() {
        return NAMESPACES + "/" + namespace + "/" + PODS + "/" + name;
    }

    @Override
    public String toString() {
        return providerID();
    }
}
