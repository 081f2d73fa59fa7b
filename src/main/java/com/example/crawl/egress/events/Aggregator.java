package com.example.crawl.egress.events;

import com.example.crawl.egress.runtime.EventReason;
import com.example.crawl.egress.runtime.ObjectEvent;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns occurrences into API writes the way client-go's {@code events.k8s.io/v1} broadcaster
 * does. An occurrence isomorphic to an open series (same Proxy, same reason) only counts; the
 * first occurrence creates an Event, the second starts its {@code series} (count 2), and later
 * counts reach the API at the next refresh (every {@code refresh}) or when the series ends (no
 * occurrence for {@code finish}, checked every {@code finish}). A single Event is forgotten after
 * {@code finish}, so a later occurrence creates a new Event.
 *
 * <p>Creating an Event costs a token from the Proxy's {@link SpamFilter} bucket (per Proxy and
 * type, as client-go's spam key is per object and type); without one the occurrence is dropped and
 * counted. Counting within a series is never limited: it writes nothing by itself.
 *
 * <p>Failures: a 409 on create means an earlier attempt landed (names are unique), a 404 on a
 * series update means the Event expired and is created again with its series, any other 4xx
 * drops the series, and anything else (5xx, 429, no answer) is retried every {@link #RETRY_EVERY}
 * up to {@link #MAX_TRIES} times (client-go: 10 s, 12 tries) without holding up other writes. The
 * first failure after a success is logged at warn, the rest at debug until writes succeed again.
 *
 * <p>Not thread-safe: confined to the recorder's thread.
 */
final class Aggregator {

    /** client-go {@code defaultSleepDuration}: the pause between tries of one write. */
    static final Duration RETRY_EVERY = Duration.ofSeconds(10);
    /** client-go {@code maxTriesPerEvent}. */
    static final int MAX_TRIES = 12;

    private static final Logger LOG = LoggerFactory.getLogger(Aggregator.class);

    private final EventWriter writer;
    private final String reportingInstance;
    private final EventRecorder.Windows windows;
    private final SpamFilter spam = new SpamFilter();
    private final Map<Key, Series> open = new HashMap<>();
    private Instant nextRetry;
    private Instant nextFinish;
    private Instant nextRefresh;
    private long lastNameNanos;
    private long rateLimited;
    private long failedWrites;
    private boolean failing;

    /** What makes two occurrences isomorphic: the object (by UID too) and the reason. */
    private record Key(ObjectEvent.Regarding regarding, EventReason reason) {
        static Key of(ObjectEvent e) {
            return new Key(e.regarding(), e.reason());
        }
    }

    Aggregator(EventWriter writer, String reportingInstance, EventRecorder.Windows windows, Instant start) {
        this.writer = writer;
        this.reportingInstance = reportingInstance;
        this.windows = windows;
        this.nextRetry = start.plus(RETRY_EVERY);
        this.nextFinish = start.plus(windows.finish());
        this.nextRefresh = start.plus(windows.refresh());
    }

    /** Counts an occurrence recorded at {@code at}; writes when it is the first or second of its series. */
    void observe(ObjectEvent event, Instant at) {
        Key key = Key.of(event);
        Series series = open.get(key);
        if (series != null) {
            series.observe(at);
            if (series.count() == 2) {
                write(key, series);
            }
            return;
        }
        if (!spam.tryAccept(event.regarding().uid() + "/" + event.reason().type(), at)) {
            rateLimited++;
            LOG.atDebug().addKeyValue("namespace", event.regarding().namespace()).addKeyValue("name", event.regarding().name())
                    .addKeyValue("reason", event.reason()).log("Event over the rate limit; dropped");
            return;
        }
        series = new Series(event, Series.name(event.regarding().name(), nameNanos(at)), at);
        open.put(key, series);
        write(key, series);
    }

    /** Retries failed writes, ends series and refreshes open ones when each is due at {@code now}. */
    void maintain(Instant now) {
        if (!now.isBefore(nextRetry)) {
            nextRetry = now.plus(RETRY_EVERY);
            writeEach(Series::owed);
        }
        if (!now.isBefore(nextFinish)) {
            nextFinish = now.plus(windows.finish());
            finish(now);
        }
        if (!now.isBefore(nextRefresh)) {
            nextRefresh = now.plus(windows.refresh());
            writeEach(s -> s.created() && s.behind());
        }
    }

    /** Writes every count the API does not hold yet: the last act before the recorder stops. */
    void flush() {
        writeEach(Series::behind);
    }

    long rateLimited() {
        return rateLimited;
    }

    long failedWrites() {
        return failedWrites;
    }

    /** Series (and single Events) still open. */
    int openSeries() {
        return open.size();
    }

    /** Writes the final count of series that ended, and forgets them and single Events past the window. */
    private void finish(Instant now) {
        for (Map.Entry<Key, Series> entry : List.copyOf(open.entrySet())) {
            Series series = entry.getValue();
            if (!series.endedBy(now, windows.finish())) {
                continue;
            }
            if (series.count() > 1 && series.behind() && !write(entry.getKey(), series)) {
                continue; // to be retried; it is forgotten once written or given up
            }
            open.remove(entry.getKey());
        }
    }

    private void writeEach(Predicate<Series> which) {
        for (Map.Entry<Key, Series> entry : List.copyOf(open.entrySet())) {
            if (which.test(entry.getValue())) {
                write(entry.getKey(), entry.getValue());
            }
        }
    }

    /**
     * Brings the API up to date with {@code series}: creates the Event, or sets its series.
     *
     * @return whether it is written; false when the write is to be retried or was given up
     */
    private boolean write(Key key, Series series) {
        try {
            if (!series.created()) {
                create(series);
            } else {
                setSeries(series);
            }
            series.written();
            if (failing) {
                failing = false;
                LOG.atInfo().addKeyValue("failedWrites", failedWrites).log("Writing Events again");
            }
            return true;
        } catch (RuntimeException e) {
            failedWrites++;
            boolean retry = retryable(e) && series.failed() < MAX_TRIES;
            if (!retry) {
                open.remove(key);
            }
            logFailure(series, e, retry);
            return false;
        }
    }

    private void create(Series series) {
        try {
            writer.create(series.event(reportingInstance));
        } catch (KubernetesClientException e) {
            // The name is this process's own and unique: a 409 means an earlier try landed.
            if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
                throw e;
            }
        }
    }

    private void setSeries(Series series) {
        try {
            writer.setSeries(series.namespace(), series.name(), series.series());
        } catch (KubernetesClientException e) {
            if (e.getCode() != HttpURLConnection.HTTP_NOT_FOUND) {
                throw e;
            }
            // Expired (the API server keeps Events for an hour by default) or deleted: make it again.
            writer.create(series.event(reportingInstance));
        }
    }

    /** Server errors, throttling and no answer at all are worth another try; other refusals are not. */
    private static boolean retryable(RuntimeException e) {
        if (!(e instanceof KubernetesClientException k) || k.getCode() == 0) {
            return true;
        }
        return k.getCode() >= 500 || k.getCode() == 429;
    }

    private void logFailure(Series series, RuntimeException e, boolean retry) {
        ObjectEvent event = series.first();
        var line = (failing ? LOG.atDebug() : LOG.atWarn()).addKeyValue("namespace", event.regarding().namespace())
                .addKeyValue("name", event.regarding().name()).addKeyValue("reason", event.reason())
                .addKeyValue("retry", retry).addKeyValue("error", e.getMessage());
        line.log(failing ? "Could not write Event" : "Could not write Event; further failures are logged at debug");
        failing = true;
    }

    /** Nanoseconds for a name: the occurrence's time, moved on if needed so that no two names repeat. */
    private long nameNanos(Instant at) {
        long nanos = at.getEpochSecond() * 1_000_000_000L + at.getNano();
        lastNameNanos = Math.max(nanos, lastNameNanos + 1);
        return lastNameNanos;
    }
}
