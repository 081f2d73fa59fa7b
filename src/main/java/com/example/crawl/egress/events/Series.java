package com.example.crawl.egress.events;

import com.example.crawl.egress.runtime.ObjectEvent;
import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.api.model.events.v1.EventBuilder;
import io.fabric8.kubernetes.api.model.events.v1.EventSeries;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * One Event as this process means the API to hold it: the first of a set of isomorphic
 * occurrences (same object and reason, hence same type and action), how many there have been, when
 * the last was, and how much of that the API has been told. The Event's note is the first
 * occurrence's: the API refuses to change it later, as client-go's recorder never tries to.
 *
 * <p>Not thread-safe: confined to the recorder's thread.
 */
final class Series {

    /** {@code reportingController}: a qualified name, as events.k8s.io/v1 requires. */
    static final String REPORTING_CONTROLLER = "crawl.example.com/egress-proxies-operator";
    /** events.k8s.io/v1 refuses a note longer than 1 KiB. */
    static final int NOTE_LIMIT = 1024;
    /** An Event's name, like any object's, is a DNS subdomain of at most 253 characters. */
    private static final int NAME_LIMIT = 253;
    /** {@code metav1.MicroTime}: RFC 3339 with exactly six fractional digits, which the API parses. */
    private static final DateTimeFormatter MICRO_TIME =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);

    private final ObjectEvent first;
    private final String name;
    private final Instant firstAt;
    private int count = 1;
    private Instant lastAt;
    private int written;
    private int failures;

    /**
     * @param first the first occurrence
     * @param name  the Event's name, unique among this process's Events
     * @param at    when the first occurrence was recorded: the Event's {@code eventTime}
     */
    Series(ObjectEvent first, String name, Instant at) {
        this.first = first;
        this.name = name;
        this.firstAt = at;
        this.lastAt = at;
    }

    /**
     * client-go's Event name: the object's name, a dot, the time in nanoseconds in hex; the
     * object's name is cut so that the whole stays a valid name.
     */
    static String name(String objectName, long nanos) {
        String suffix = "." + Long.toHexString(nanos);
        String base = objectName.length() + suffix.length() <= NAME_LIMIT
                ? objectName : objectName.substring(0, NAME_LIMIT - suffix.length());
        while (base.endsWith("-") || base.endsWith(".")) {
            base = base.substring(0, base.length() - 1);
        }
        return base + suffix;
    }

    /** One more occurrence, at {@code at}. */
    void observe(Instant at) {
        count++;
        lastAt = at;
    }

    ObjectEvent first() {
        return first;
    }

    String namespace() {
        return first.regarding().namespace();
    }

    String name() {
        return name;
    }

    int count() {
        return count;
    }

    /** Whether the API holds this Event at all. */
    boolean created() {
        return written > 0;
    }

    /** Whether the API holds a smaller count than this process has seen, or nothing yet. */
    boolean behind() {
        return written < count;
    }

    /** Whether the last write failed and nothing has been written since. */
    boolean owed() {
        return failures > 0;
    }

    /** Whether no occurrence came within {@code window} before {@code now}: the series has ended. */
    boolean endedBy(Instant now, Duration window) {
        return lastAt.isBefore(now.minus(window));
    }

    /** The API holds everything seen so far. */
    void written() {
        written = count;
        failures = 0;
    }

    /** A write failed; returns how many have failed in a row. */
    int failed() {
        return ++failures;
    }

    /** The whole Event, with its series once there is more than one occurrence. */
    Event event(String reportingInstance) {
        return new EventBuilder()
                .withNewMetadata().withNamespace(namespace()).withName(name).endMetadata()
                .withEventTime(microTime(firstAt))
                .withRegarding(new ObjectReferenceBuilder().withApiVersion(first.regarding().apiVersion())
                        .withKind(first.regarding().kind()).withNamespace(namespace())
                        .withName(first.regarding().name()).withUid(first.regarding().uid()).build())
                .withReportingController(REPORTING_CONTROLLER)
                .withReportingInstance(reportingInstance)
                .withType(first.reason().type().name())
                .withReason(first.reason().name())
                .withAction(first.reason().action())
                .withNote(note(first.note()))
                .withSeries(count > 1 ? series() : null)
                .build();
    }

    /** The series as the API should hold it: {@code count} and {@code lastObservedTime}. */
    EventSeries series() {
        return new EventSeries(count, microTime(lastAt));
    }

    static MicroTime microTime(Instant at) {
        return new MicroTime(MICRO_TIME.format(at));
    }

    /** {@code note}, cut to the API's limit in UTF-8 bytes, with an ellipsis when cut. */
    static String note(String note) {
        if (note.getBytes(StandardCharsets.UTF_8).length <= NOTE_LIMIT) {
            return note;
        }
        StringBuilder cut = new StringBuilder();
        int bytes = "...".length();
        for (int i = 0; i < note.length(); ) {
            int cp = note.codePointAt(i);
            int size = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8).length;
            if (bytes + size > NOTE_LIMIT) {
                break;
            }
            cut.appendCodePoint(cp);
            bytes += size;
            i += Character.charCount(cp);
        }
        return cut.append("...").toString();
    }
}
