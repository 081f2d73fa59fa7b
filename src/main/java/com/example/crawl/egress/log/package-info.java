/**
 * Logging: the process's only SLF4J 2 provider, writing one JSON object (or, with
 * {@code --log-format=text}, one escaped text line) per event on stdout, whole and atomic across
 * threads, with {@code java.util.logging} routed in through slf4j's own bridge. It decides how an
 * event becomes a line, not what is logged: callers keep messages constant, put variable data in
 * key-value pairs and never pass secrets.
 *
 * <p>Used by every package, so it imports nothing of this project and nothing but the JDK and
 * slf4j (no Jackson: logging a Jackson failure must not fail; {@code LayeringTest}). Never throws
 * into a caller: a line that cannot be rendered, or an output that fails, is reported on stderr.
 */
package com.example.crawl.egress.log;
