package com.example.crawl.egress.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * What every member of a {@link ProxyPool} is made from: labels and annotations for its metadata,
 * and a {@link ProxySpec} (a {@code Managed} one; a placement may set its provider and a few
 * provider fields).
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record ProxyTemplate(Metadata metadata, ProxySpec spec) {

    public ProxyTemplate {
        metadata = metadata == null ? Metadata.EMPTY : metadata;
    }

    /** The labels and annotations every member gets, besides the pool's own labels. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Metadata(Map<String, String> labels, Map<String, String> annotations) {

        public static final Metadata EMPTY = new Metadata(null, null);

        public Metadata {
            labels = sorted(labels);
            annotations = sorted(annotations);
        }

        private static Map<String, String> sorted(Map<String, String> m) {
            return m == null ? Map.of() : Collections.unmodifiableSortedMap(new TreeMap<>(m));
        }
    }
}
