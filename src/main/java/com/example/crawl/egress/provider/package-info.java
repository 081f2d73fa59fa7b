/**
 * The contract every backend implements ({@code Provider}, the optional {@code Checker}), the
 * sealed family of provider errors and their classification, the registry built from the
 * providers config, and the metrics and tracing decorators.
 *
 * <p>Must not import a concrete provider package (they import this one) or the controller.
 */
package com.example.crawl.egress.provider;
