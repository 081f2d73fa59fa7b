package com.example.crawl.egress.api;

import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * The last verdict on one configured provider's backend: {@code providerhealths.crawl.example.com},
 * cluster-scoped, named after the provider, status only (the providers config file stays the one
 * place providers are configured).
 */
@Group(Proxy.GROUP)
@Version(Proxy.VERSION)
@Kind("ProviderHealth")
@Plural("providerhealths")
@Singular("providerhealth")
@ShortNames("ph")
public final class ProviderHealth extends CustomResource<Void, ProviderHealthStatus> {

    @Override
    protected Void initSpec() {
        return null;
    }

    @Override
    protected ProviderHealthStatus initStatus() {
        return null;
    }
}
