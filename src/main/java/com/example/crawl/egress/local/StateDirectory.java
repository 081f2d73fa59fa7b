package com.example.crawl.egress.local;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Local mode's state directory, made safe to keep credentials, a kubeconfig and process ids in:
 * created {@code 0700} when missing, and refused when it is a symbolic link, is owned by another
 * user, or may be written by group or others (someone else could then plant a process id for the
 * operator to signal, or a Squid configuration for it to run). A directory of the user's own that
 * others may merely read is closed to them ({@code 0700}).
 */
final class StateDirectory {

    private static final Set<PosixFilePermission> PRIVATE = PosixFilePermissions.fromString("rwx------");

    private StateDirectory() {
    }

    /**
     * The directory, ready for use.
     *
     * @throws Refused with one line saying what is wrong and what to do
     */
    static Path open(Path dir) throws IOException, Refused {
        Path absolute = dir.toAbsolutePath();
        if (!Files.exists(absolute, LinkOption.NOFOLLOW_LINKS)) {
            Files.createDirectories(absolute.getParent());
            Files.createDirectory(absolute, PosixFilePermissions.asFileAttribute(PRIVATE));
        }
        PosixFileAttributes attributes = Files.readAttributes(absolute, PosixFileAttributes.class,
                LinkOption.NOFOLLOW_LINKS);
        if (!attributes.isDirectory()) {
            throw new Refused(absolute + " is " + (attributes.isSymbolicLink() ? "a symbolic link" : "not a directory")
                    + "; give --local-state-dir a directory of your own");
        }
        int owner = (Integer) Files.getAttribute(absolute, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        int self = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        if (owner != self) {
            throw new Refused("state directory " + absolute + " belongs to another user (uid " + owner
                    + "); give --local-state-dir a directory of your own");
        }
        Set<PosixFilePermission> permissions = attributes.permissions();
        if (permissions.contains(PosixFilePermission.GROUP_WRITE) || permissions.contains(PosixFilePermission.OTHERS_WRITE)) {
            throw new Refused("state directory " + absolute + " may be written by others ("
                    + PosixFilePermissions.toString(permissions) + "); chmod 700 it or give --local-state-dir another");
        }
        if (!permissions.equals(PRIVATE)) {
            Files.setPosixFilePermissions(absolute, PRIVATE);
        }
        return absolute;
    }

    /** The directory must not be used; the message says why and what to do. */
    static final class Refused extends Exception {
        Refused(String message) {
            super(message);
        }
    }
}
