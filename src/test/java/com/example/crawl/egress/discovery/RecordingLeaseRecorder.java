package com.example.crawl.egress.discovery;

import com.example.crawl.egress.lease.Acquisition;
import com.example.crawl.egress.lease.LeaseStore;
import com.example.crawl.egress.lease.ReportResult;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A {@link LeaseRecorder} that keeps every call as a line of text, in order, and a
 * {@link ServedRecorder} that keeps every request as "route status", apart. Thread-safe.
 */
final class RecordingLeaseRecorder implements LeaseRecorder, ServedRecorder {

    private final List<String> calls = new CopyOnWriteArrayList<>();
    private final List<String> served = new CopyOnWriteArrayList<>();

    @Override
    public void served(String route, int status, Duration elapsed) {
        if (elapsed.isNegative()) {
            throw new AssertionError("negative duration " + elapsed);
        }
        served.add(route + " " + status);
    }

    /** The requests served so far, as "route status". */
    List<String> served() {
        return List.copyOf(served);
    }

    @Override
    public void acquired(String client, Acquisition outcome) {
        String by = client.equals(LeaseRecorder.ADMIN) ? "" : client + " ";
        calls.add(by + switch (outcome) {
            case Acquisition.Granted g -> "granted " + g.proxy().key();
            case Acquisition.NoMatch n -> "no_match " + n.considered();
            case Acquisition.SessionUnavailable s -> "session_unavailable " + s.reason();
            case Acquisition.OverQuota q -> "quota_exceeded " + q.active();
            case Acquisition.OverShare o -> "over_share " + o.active() + "/" + o.share();
        });
    }

    @Override
    public void refused(String client, Refusal refusal) {
        calls.add(client + " " + refusal.name().toLowerCase(java.util.Locale.ROOT));
    }

    @Override
    public void released() {
        calls.add("released");
    }

    @Override
    public void reported(ReportResult result, LeaseStore.Reported outcome) {
        calls.add("reported " + result.wireName() + " " + outcome);
    }

    @Override
    public void failed(Optional<ProxyError> error) {
        calls.add("failed " + error.map(ProxyError::wireName).orElse("unspecified"));
    }

    List<String> calls() {
        return List.copyOf(calls);
    }

    void clear() {
        calls.clear();
        served.clear();
    }
}
