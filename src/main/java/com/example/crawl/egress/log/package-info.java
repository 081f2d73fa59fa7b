/**
 * Logging: the process's only SLF4J 2 provider, its two line formats ({@code json}, {@code text})
 * and a {@code java.util.logging} bridge, configured once by {@link
 * com.example.crawl.egress.log.LogSetup}.
 *
 * <p>Owns how a log event becomes one line on stdout: level filtering (including the quieter rule
 * for third-party loggers), the MDC and key-value fields, JSON escaping, and the atomicity of a
 * line across threads. It does not decide what is logged: callers keep messages constant and put
 * variable data in key-value pairs, and never pass secrets.
 *
 * <p>Must not import any other package of this project (every package may log, and logging has
 * to work before anything else is built), and must not use any library beyond the JDK and
 * {@code slf4j-api}: in particular no Jackson, so that logging a Jackson failure cannot fail.
 * Nothing here throws into a caller that logs; a line that cannot be written is reported on
 * stderr and dropped. Settings are read from the current configuration at every event, so loggers
 * created before {@code LogSetup.configure} (fabric8's static loggers) follow it.
 */
package com.example.crawl.egress.log;
