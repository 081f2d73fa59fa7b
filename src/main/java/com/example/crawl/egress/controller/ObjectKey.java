package com.example.crawl.egress.controller;

/** What a work queue holds: a namespaced object's namespace and name, never the object. */
public interface ObjectKey {

    String namespace();

    String name();
}
