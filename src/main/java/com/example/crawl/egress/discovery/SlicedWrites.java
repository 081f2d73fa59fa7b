package com.example.crawl.egress.discovery;

import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.HttpExchange;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Objects;

/**
 * Hands the JDK server every response body at most {@value #SLICE} bytes at a time. The server
 * keeps, per connection and for as long as the connection lives, a write buffer twice the size of
 * the largest single write it was given ({@code sun.net.httpserver}'s {@code WriteStream}), and a
 * write larger than the 8 KiB buffer in front of it goes straight to that one: a list of 10,000
 * Proxies written in one piece (2.2 MB) left 4.4 MB behind on every kept-alive connection that
 * fetched it, which is what a crawler's connection pool is. In slices, a connection keeps no more
 * than the server's own buffering, 16 KiB. Applied once, around every handler, so no answer is
 * written past it.
 */
final class SlicedWrites extends Filter {

    /** The largest write the server is handed: its own buffer's size, so that writes stay buffered. */
    static final int SLICE = 8192;

    @Override
    public void doFilter(HttpExchange exchange, Chain chain) throws IOException {
        exchange.setStreams(null, new Sliced(exchange.getResponseBody()));
        chain.doFilter(exchange);
    }

    @Override
    public String description() {
        return "writes response bodies to the server in slices of at most " + SLICE + " bytes";
    }

    /** An output stream that passes each write on in slices of at most {@value #SLICE} bytes. */
    static final class Sliced extends FilterOutputStream {

        Sliced(OutputStream out) {
            super(out);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            Objects.checkFromIndexSize(off, len, b.length);
            for (int at = off, end = off + len; at < end; at += SLICE) {
                out.write(b, at, Math.min(SLICE, end - at));
            }
        }
    }
}
