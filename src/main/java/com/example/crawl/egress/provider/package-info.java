/**
 * The contract every backend implements ({@code Provider}, the optional {@code Checker}), the
 * sealed family of provider errors and their classification, the registry built from the
 * providers config, and the decorator seam through which metrics (now) and tracing (later) wrap
 * every provider.
 *
 * <p>Public: what the controller, garbage collection, provider health, the concrete providers and
 * {@code Main} use — {@code Provider}, {@code CreateRequest}, {@code Instance},
 * {@code InstanceState}, {@code ProviderException}, {@code Checker}, {@code TargetStatus},
 * {@code CheckCall} (a checker's call under its deadline, and the one {@code Timeout} reason),
 * {@code ProviderFactory}, {@code ProviderDecorator}, {@code RequestRecorder} and
 * {@code ProviderRegistry}. {@code MeteredProvider} stays package-private behind
 * {@code ProviderDecorator.metered}. Tests of other packages use the test-scope
 * {@code FakeProvider} and {@code FakeChecker}.
 *
 * <p>Must not import a concrete provider package (they import this one) or the controller;
 * {@code LayeringTest} enforces both. Holds no clocks: time is injected. Starts no threads but
 * the one virtual thread of each {@code CheckCall}.
 */
package com.example.crawl.egress.provider;
