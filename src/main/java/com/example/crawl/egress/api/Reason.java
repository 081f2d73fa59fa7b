package com.example.crawl.egress.api;

/**
 * Reasons the operator writes into conditions. The enum constant's name is the API value, so the
 * set of reasons a user can meet is this one list.
 */
public enum Reason {
    /** Provisioned=False: the provider is creating the instance. */
    Provisioning,
    /** Provisioned=True: the instance runs and has an address. */
    Created,
    /** Provisioned=False: the shape changed; the old instance is being deleted before a new one. */
    Replacing,
    /** Provisioned=False: the object is being deleted and the instance with it. */
    Deleting,
    /** Provisioned=True: an External proxy; nothing to provision. */
    ExternalEndpoint,
    /** Provisioned=False: the provider said no for good; phase Failed until the spec changes. */
    PermanentError,
    /**
     * Provisioned=False: {@code spec.provider} names no provider in the operator's providers
     * config; phase Failed, re-checked on every pass so that a fixed config recovers it.
     */
    UnknownProvider,
    /** Provisioned=False: the provider is out of quota; retried slowly, never Failed. */
    QuotaExceeded,
    /** Provisioned=False: the cloud-init Secret is missing, unlabelled or lacks the key. */
    CloudInitError,
    /**
     * Provisioned=False: the Proxy's credentials Secret cannot be used (it belongs to something
     * else, or lacks a key); nothing is created until it is removed or fixed.
     */
    CredentialsError,
    /** Provisioned=False: the spec breaks a rule the CRD should have enforced. */
    InvalidSpec,
    /** Healthy=True: the last verdict-setting probes succeeded. */
    ProbeSucceeded,
    /** Healthy=False: the last verdict-setting probes failed. */
    ProbeFailed,
    /**
     * Healthy=Unknown: it was True, but Provisioned is not True (failed, pending, being replaced or
     * deleted), so no pass vouches for the instance and the proxy is not lent.
     */
    NotProvisioned
}
