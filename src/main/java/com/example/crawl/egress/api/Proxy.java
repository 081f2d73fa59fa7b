package com.example.crawl.egress.api;

import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * One egress proxy a team asked for: {@code proxies.crawl.example.com/v1alpha1}, namespaced.
 *
 * <p>The operator is the only writer of {@code status}; users own {@code spec}. Instances are
 * mutable only because fabric8's resource base class is; treat a cached {@code Proxy} as
 * read-only and copy before changing it.
 */
@Group(Proxy.GROUP)
@Version(Proxy.VERSION)
@Kind("Proxy")
@Plural("proxies")
@Singular("proxy")
@ShortNames("px")
public final class Proxy extends CustomResource<ProxySpec, ProxyStatus> implements Namespaced {

    public static final String GROUP = "crawl.example.com";
    public static final String VERSION = "v1alpha1";

    /** Finalizer that keeps the object until the operator has removed what it created. */
    public static final String FINALIZER = GROUP + "/cleanup";
    /** Annotation holding {@link SpecHash} of the spec the current instance was created from. */
    public static final String SPEC_HASH_ANNOTATION = GROUP + "/spec-hash";
    /**
     * Annotation holding the name (in the providers config) of the provider that made the current
     * instance, written with {@link #SPEC_HASH_ANNOTATION}: after an edit of {@code spec.provider}
     * the old instance is still looked up and deleted through the provider that has it.
     */
    public static final String INSTANCE_PROVIDER_ANNOTATION = GROUP + "/instance-provider";
    /** Annotation that, set to {@code "true"}, abandons the instance and releases the object. */
    public static final String SKIP_CLEANUP_ANNOTATION = GROUP + "/skip-cleanup";
    /** Label a Secret must carry before a Proxy may read cloud-init from it. */
    public static final String CLOUD_INIT_SECRET_LABEL = GROUP + "/cloud-init";
    /**
     * Label of the Secrets the operator reads proxy credentials from: the ones it generates for
     * Managed Proxies, and the ones External Proxies name in {@code spec.endpoint.credentialsSecretRef}.
     */
    public static final String CREDENTIALS_SECRET_LABEL = GROUP + "/proxy-credentials";
    /**
     * Label, {@code "true"}, on every object a provider makes in a Kubernetes cluster for a Proxy
     * (the {@code kubernetes} provider's pods and their password-file Secrets); what listing and
     * garbage collection select on.
     */
    public static final String MANAGED_LABEL = GROUP + "/managed";
    /** Label holding the UID of the Proxy an object with {@link #MANAGED_LABEL} was made for. */
    public static final String OWNER_UID_LABEL = GROUP + "/owner-uid";

    @Override
    protected ProxySpec initSpec() {
        return null;
    }

    @Override
    protected ProxyStatus initStatus() {
        return null;
    }
}
