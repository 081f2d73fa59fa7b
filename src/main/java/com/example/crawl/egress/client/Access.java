package com.example.crawl.egress.client;

/** What a client may do with the proxies in its scope. */
public enum Access {
    /** List them and lease them: the default. */
    LEASE,
    /** List them only; a lease request is 403. */
    LIST
}
