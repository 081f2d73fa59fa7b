/**
 * Logging: the process's only SLF4J 2 provider and its two line formats ({@code json},
 * {@code text}), configured once by {@link com.example.crawl.egress.log.LogSetup}, which also
 * routes {@code java.util.logging} here through slf4j's own {@code jul-to-slf4j} bridge.
 *
 * <p>Owns how a log event becomes one line on stdout: level filtering (including the quieter rule
 * for third-party loggers), the MDC and key-value fields, JSON escaping and text-format escaping
 * (stack traces included), and the atomicity of a line across threads. It does not decide what is
 * logged: callers keep messages constant and put variable data in key-value pairs, and never pass
 * secrets. It keeps only what no library it may use does: the bridge from JUL is slf4j's.
 *
 * <p>Must not import any other package of this project (every package may log, and logging has
 * to work before anything else is built), and must not use any library beyond the JDK,
 * {@code slf4j-api} and {@code jul-to-slf4j}: in particular no Jackson, so that logging a Jackson
 * failure cannot fail. Nothing here throws into a caller that logs; a line that cannot be rendered
 * is reported on stderr and dropped, and an output stream that starts failing is reported on
 * stderr once. Settings are read from the current configuration at every event, so loggers
 * created before {@code LogSetup.configure} (fabric8's static loggers) follow it.
 */
package com.example.crawl.egress.log;
