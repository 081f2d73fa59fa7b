package com.example.crawl.egress.runtime;

/** What a work queue holds: a namespaced object's namespace and name, never the object. */
public interface ObjectKey {

    String namespace();

    String name();
}
