package com.example.crawl.egress.discovery;

import com.example.crawl.egress.lease.Acquisition;
import com.example.crawl.egress.lease.LeaseStore;
import com.example.crawl.egress.lease.ReportResult;
import java.util.Optional;

/**
 * Where the discovery API reports what happened to each lease request, for metrics. Requests that
 * reached the lease store are reported, and those of an authenticated client that its scope or
 * rate refused before; a request refused as malformed or unauthenticated shows in the request
 * log, not here. Implementations are thread-safe and must not block: they
 * are called on the request's thread, after the store has answered.
 */
public interface LeaseRecorder {

    /** Records nothing. */
    LeaseRecorder NONE = new LeaseRecorder() {
        @Override
        public void acquired(String client, Acquisition outcome) { }

        @Override
        public void refused(String client, Refusal refusal) { }

        @Override
        public void released() { }

        @Override
        public void reported(ReportResult result, LeaseStore.Reported outcome) { }

        @Override
        public void failed(Optional<ProxyError> error) { }
    };

    /** The {@code client} of a lease asked with the operator's own token. */
    String ADMIN = "admin";

    /**
     * {@code client} (a client's name, or {@link #ADMIN}) asked for a lease: granted, or refused
     * with the counts that say why.
     */
    void acquired(String client, Acquisition outcome);

    /** Why a client's lease request was refused before it reached the lease store. */
    enum Refusal {
        /** Outside its scope, or by a client that may only list (403). */
        FORBIDDEN,
        /** Over its lease rate (429). */
        LEASE_RATE
    }

    /** {@code client}'s lease request was refused before it reached the store. */
    void refused(String client, Refusal refusal);

    /** A lease was released (whether or not it was still known: release is idempotent). */
    void released();

    /** A client reported {@code result}; {@code outcome} says whether the lease was known. */
    void reported(ReportResult result, LeaseStore.Reported outcome);

    /** A {@code failed} report of a known lease was taken, naming how the request failed or not. */
    void failed(Optional<ProxyError> error);
}
