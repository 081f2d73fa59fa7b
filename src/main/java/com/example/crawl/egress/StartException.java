package com.example.crawl.egress;

import java.io.IOException;
import java.net.InetSocketAddress;

/** The operator cannot start; the message says why in one line, naming the flag to change where there is one. */
final class StartException extends Exception {

    StartException(String message) {
        super(message);
    }

    /** Something that listens on an address, made by {@link #listening}. */
    @FunctionalInterface
    interface Listener<T> {
        T listen(InetSocketAddress address) throws IOException;
    }

    /** {@code listener} on {@code address}, or a StartException naming {@code --flag} when it cannot listen. */
    static <T> T listening(String flag, InetSocketAddress address, Listener<T> listener) throws StartException {
        try {
            return listener.listen(address);
        } catch (IOException e) {
            throw new StartException("cannot listen on --" + flag + " " + address.getHostString() + ":"
                    + address.getPort() + ": " + e.getMessage());
        }
    }
}
