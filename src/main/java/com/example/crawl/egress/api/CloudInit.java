package com.example.crawl.egress.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * Cloud-init user data for a VM, given inline or by reference to a labelled Secret; exactly one
 * of the two is set on a valid object.
 */
@JsonIgnoreProperties(ignoreUnknown = true) // a newer CRD, or an unpruned store, must not break the informer
public record CloudInit(String userData, SecretKeyRef secretRef) {

    /** A key in a Secret of the Proxy's namespace. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record SecretKeyRef(String name, String key) { }

    /** Never prints the user data: it routinely carries credentials. */
    @Override
    public String toString() {
        String inline = userData == null ? "null" : "<" + userData.length() + " chars>";
        return "CloudInit[userData=" + inline + ", secretRef=" + secretRef + "]";
    }
}
