package com.example.crawl.egress.discovery;

import com.example.crawl.egress.lease.Acquisition;
import com.example.crawl.egress.lease.LeaseStore;
import com.example.crawl.egress.lease.ReportResult;
import java.util.Optional;

/**
 * Where the discovery API reports what happened to each lease request, for metrics. Only requests
 * that reached the lease store are reported: a request refused as malformed or unauthenticated
 * shows in the request log, not here. Implementations are thread-safe and must not block: they
 * are called on the request's thread, after the store has answered.
 */
public interface LeaseRecorder {

    /** Records nothing. */
    LeaseRecorder NONE = new LeaseRecorder() {
        @Override
        public void acquired(Acquisition outcome) { }

        @Override
        public void released() { }

        @Override
        public void reported(ReportResult result, LeaseStore.Reported outcome) { }

        @Override
        public void failed(Optional<ProxyError> error) { }
    };

    /** A lease was asked for: granted, or refused with the counts that say why. */
    void acquired(Acquisition outcome);

    /** A lease was released (whether or not it was still known: release is idempotent). */
    void released();

    /** A client reported {@code result}; {@code outcome} says whether the lease was known. */
    void reported(ReportResult result, LeaseStore.Reported outcome);

    /** A {@code failed} report of a known lease was taken, naming how the request failed or not. */
    void failed(Optional<ProxyError> error);
}
