package com.example.crawl.egress.api;

/**
 * Cloud-init user data for a VM, given inline or by reference to a labelled Secret; exactly one
 * of the two is set on a valid object.
 */
public record CloudInit(String userData, SecretKeyRef secretRef) {

    /** A key in a Secret of the Proxy's namespace. */
    public record SecretKeyRef(String name, String key) { }

    /** Never prints the user data: it routinely carries credentials. */
    @Override
    public String toString() {
        String inline = userData == null ? "null" : "<" + userData.length() + " chars>";
        return "CloudInit[userData=" + inline + ", secretRef=" + secretRef + "]";
    }
}
