package com.example.crawl.egress.api;

/** Address of an existing proxy that an {@code External} Proxy registers. */
public record Endpoint(String host, Integer port) { }
