/**
 * Start-up configuration: command-line flags and environment variables parsed strictly into one
 * immutable {@code OperatorConfig}, and the providers config file parsed into typed entries.
 *
 * <p>Owns every read of flags, environment and the providers file; errors are one-line
 * {@code ConfigException}s naming the flag, variable, entry or field. Must not import any other
 * component of the operator, open network connections or start threads.
 */
package com.example.crawl.egress.config;
