/**
 * The API: the {@code Proxy} and {@code ProviderHealth} resource types, their spec and status
 * values, and the pure rules on them (defaults, validation, phase, conditions, spec hash,
 * instance names).
 *
 * <p>Owns the shape of the objects users write and the operator reports. Must not import client,
 * provider, HTTP or any other component code of this project: fabric8's model classes and
 * annotations, its {@code CustomResource} base class and Jackson are the only foreign
 * types allowed here ({@code LayeringTest} enforces it). No I/O, no clocks: callers pass time in.
 */
package com.example.crawl.egress.api;
