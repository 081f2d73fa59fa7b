package com.example.crawl.egress.lab;

import java.util.List;

/**
 * The restrictions a {@link NetnsLab} Squid runs under when a test wants it to run as a hardened
 * pod would: {@code runAsUser}/{@code runAsGroup}, {@code capabilities: {drop: [ALL]}},
 * {@code allowPrivilegeEscalation: false} and {@code readOnlyRootFilesystem: true}, with an
 * {@code emptyDir} at each writable directory.
 *
 * <p>Every mount Squid sees is read-only except a fresh, empty tmpfs at each of
 * {@code writableDirectories}. The test's working directory is copied to {@code stage} and
 * mounted read-only there, as a ConfigMap or Secret volume would be; Squid runs in it.
 *
 * @param uid                 the user Squid runs as; never 0
 * @param gid                 its group, and its only group
 * @param writableDirectories absolute paths, each given a fresh tmpfs; they must exist
 * @param stage               absolute path inside one of {@code writableDirectories} where the
 *                            working directory's files appear, readable by everyone, writable by
 *                            none
 */
public record Hardening(int uid, int gid, List<String> writableDirectories, String stage) {

    /** Debian's and Ubuntu's {@code proxy} user and group, which their Squid packages use. */
    public static final int PROXY = 13;

    public Hardening {
        writableDirectories = List.copyOf(writableDirectories);
        if (uid == 0) {
            throw new IllegalArgumentException("a hardened Squid does not run as root");
        }
        for (String dir : writableDirectories) {
            requireAbsolute(dir);
        }
        requireAbsolute(stage);
        if (writableDirectories.stream().noneMatch(dir -> stage.startsWith(dir + "/"))) {
            throw new IllegalArgumentException("stage " + stage + " is not inside one of " + writableDirectories);
        }
    }

    /**
     * What our Squid pods get: the {@code proxy} user, {@code /tmp} as an emptyDir and
     * {@code /dev/shm}, which every container runtime mounts writable whatever the root file
     * system is. Squid 5.7 needs it even with {@code -N}: it creates its {@code squid-cf__*.shm}
     * segments there at start and exits if it cannot.
     */
    public static Hardening pod() {
        return new Hardening(PROXY, PROXY, List.of("/tmp", "/dev/shm"), "/tmp/squid");
    }

    /** The same, but with {@code writableDirectories} instead (to learn what Squid needs). */
    public Hardening withWritableDirectories(List<String> directories) {
        return new Hardening(uid, gid, directories, stage);
    }

    private static void requireAbsolute(String path) {
        // The sandbox script takes the paths as words and mountinfo escapes blanks.
        if (!path.startsWith("/") || path.equals("/") || path.matches(".*[\\s\\\\].*")) {
            throw new IllegalArgumentException("not an absolute path without blanks: " + path);
        }
    }
}
