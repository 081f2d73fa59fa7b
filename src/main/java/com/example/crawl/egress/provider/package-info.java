/**
 * The contract every backend implements: four idempotent blocking calls (create, get, delete,
 * list by owner tag), the optional {@code Checker} with its deadline-bound {@code CheckCall}, the
 * sealed family of provider errors that callers switch on, the registry built from the providers
 * config, and the decorators through which metering and tracing wrap every provider. It also
 * holds what every Squid configuration shares: the egress policy, the access rules, the hashed
 * password file and the cloud-init the VM providers hand their instances.
 *
 * <p>Providers are built on every replica but called only by leader-only components (the Proxy
 * controller, garbage collection, provider health). Must not import a controller, the runtime,
 * the cache or a concrete provider package: they import this one, and {@code Main} hands in the
 * factories ({@code LayeringTest}). Starts no threads but each check call's one virtual thread.
 */
package com.example.crawl.egress.provider;
