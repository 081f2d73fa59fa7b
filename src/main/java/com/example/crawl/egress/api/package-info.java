/**
 * The resource types users write and the operator reports ({@code Proxy}, {@code ProxyPool},
 * {@code TargetPolicy}, {@code ProviderHealth}), their spec and status records, and the pure rules
 * on them: CRD defaults applied in constructors, the CRD's rules re-checked, conditions, the phase
 * derived from them, the spec hash, instance names, and a Proxy's credentials and the Secret that
 * holds them, and the lease credentials made from them.
 *
 * <p>Shared by the components on every replica; does no I/O and reads no clock (callers pass time
 * in). Imports only the JDK (its MAC included), fabric8's model classes, annotations and
 * {@code CustomResource}, and Jackson: no client, provider, HTTP or component code
 * ({@code LayeringTest}).
 */
package com.example.crawl.egress.api;
