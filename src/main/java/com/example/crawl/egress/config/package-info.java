/**
 * Start-up configuration: every flag and environment variable, parsed strictly into one immutable
 * {@code OperatorConfig} with one record per component (so each is handed only its part), and the
 * providers file parsed into typed entries. The flag table is declared once and also gives
 * {@code --help}; a bad value is a one-line {@code ConfigException} naming the flag, variable,
 * entry or field, and {@code Main} exits 2.
 *
 * <p>The only reader of flags and environment; reads no file but the providers file, opens no
 * connection and starts no thread. Imports of this project only {@code log}'s format and level
 * types, for the logging flags.
 */
package com.example.crawl.egress.config;
