package com.example.crawl.egress.gc;

/**
 * Where the orphan sweeper reports what it did: the {@code gc} package's view of the metrics, so
 * that it never imports the metrics package. {@code Main} passes the metrics object's recorder.
 *
 * <p>Implementations are thread-safe, return quickly without blocking and never throw.
 */
public interface GcRecorder {

    /** A sweep that judged everything it listed and deleted every orphan it found. */
    String COMPLETED = "completed";
    /**
     * A sweep that ran but left something unjudged or undeleted: a provider or Secret listing or a
     * delete failed, or the sweeper was closed mid-sweep. The next sweep tries again.
     */
    String PARTIAL = "partial";
    /** A sweep that judged nothing because the Proxies could not be listed. */
    String SKIPPED = "skipped";

    /** Records nothing. */
    GcRecorder NONE = new GcRecorder() {
        @Override
        public void instanceDeleted(String provider) {
        }

        @Override
        public void secretDeleted(String kind) {
        }

        @Override
        public void swept(String result) {
        }
    };

    /** One orphaned instance deleted from the provider configured as {@code provider}. */
    void instanceDeleted(String provider);

    /**
     * One orphaned Secret deleted.
     *
     * @param kind {@code credentials} (a Proxy's credentials Secret) or {@code pod_password} (the
     *             {@code kubernetes} provider's password-file Secret of a pod)
     */
    void secretDeleted(String kind);

    /** One sweep ended: {@link #COMPLETED}, {@link #PARTIAL} or {@link #SKIPPED}. */
    void swept(String result);
}
