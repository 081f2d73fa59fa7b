package com.example.crawl.egress.provider.kvm;

import com.example.crawl.egress.provider.ProviderException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import org.libvirt.LibvirtException;

/**
 * The provider's way into {@link HostPool#call}: a timeout turned into a deadline, and what
 * comes back sorted into provider errors ({@link LibvirtFailure}), each message naming the host
 * and the step.
 */
record HostCalls(HostPool hosts, Clock clock) {

    /** Runs {@code work} on {@code host} within {@code timeout}; {@code what} names the step in errors. */
    <T> T call(String host, Duration timeout, String what, LibvirtCall<T> work) throws ProviderException {
        try {
            return hosts.call(host, clock.instant().plus(timeout), work);
        } catch (LibvirtException e) {
            throw LibvirtFailure.classify("host " + host + ": " + what, e);
        } catch (UncheckedIOException | IllegalStateException e) {
            // an upload's local read, or a stream that took nothing: the next attempt starts over
            throw new ProviderException.Transient("host " + host + ": " + what + ": " + e.getMessage(), e);
        }
    }
}
