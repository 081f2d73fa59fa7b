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
 * Per-site leasing policy for the Proxies of its namespace:
 * {@code targetpolicies.crawl.example.com/v1alpha1}, namespaced, short name {@code tp}. Its
 * {@code spec.hosts} name the sites it governs; a field it leaves out falls back to the
 * operator's flag default. {@link TargetPolicyRules} re-checks the CRD's rules.
 *
 * <p>As with {@link Proxy}, the operator is the only writer of {@code status}; treat a cached
 * policy as read-only.
 */
@Group(Proxy.GROUP)
@Version(Proxy.VERSION)
@Kind("TargetPolicy")
@Plural("targetpolicies")
@Singular("targetpolicy")
@ShortNames("tp")
public final class TargetPolicy extends CustomResource<TargetPolicySpec, TargetPolicyStatus> implements Namespaced {

    /** The condition type saying whether the policy is in force; its reason is an {@link AcceptedReason}. */
    public static final String ACCEPTED = "Accepted";

    /** Why a policy is or is not in force; the constant's name is the condition's reason. */
    public enum AcceptedReason {
        /** Accepted=True: the policy is in force. */
        Applied,
        /** Accepted=False: the spec breaks a rule; the message lists each. */
        Invalid,
        /**
         * Accepted=False: one of its hosts is already claimed by an older policy in the same
         * namespace, so none of this policy applies.
         */
        Conflicted
    }

    @Override
    protected TargetPolicySpec initSpec() {
        return null;
    }

    @Override
    protected TargetPolicyStatus initStatus() {
        return null;
    }
}
