package com.example.crawl.egress.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StateDirectoryTest {

    @TempDir
    Path tmp;

    @Test
    void shouldCreateAMissingDirectoryOnlyItsUserMayEnter() throws Exception {
        Path dir = StateDirectory.open(tmp.resolve("a/b/state"));

        assertEquals("rwx------", mode(dir));
    }

    @Test
    void shouldCloseAnOwnDirectoryThatOthersMayRead() throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("state"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));

        StateDirectory.open(dir);

        assertEquals("rwx------", mode(dir));
    }

    @Test
    void shouldRefuseADirectoryOthersMayWriteTo() throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("state"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));

        StateDirectory.Refused e = assertThrows(StateDirectory.Refused.class, () -> StateDirectory.open(dir));

        assertTrue(e.getMessage().contains("may be written by others (rwxrwxrwx)"), e.getMessage());
        assertEquals("rwxrwxrwx", mode(dir), "refused, not changed");
    }

    @Test
    void shouldRefuseASymbolicLinkEvenToAnOwnDirectory() throws Exception {
        Path real = StateDirectory.open(tmp.resolve("real"));
        Path link = Files.createSymbolicLink(tmp.resolve("link"), real);

        StateDirectory.Refused e = assertThrows(StateDirectory.Refused.class, () -> StateDirectory.open(link));

        assertTrue(e.getMessage().contains("is a symbolic link"), e.getMessage());
    }

    @Test
    void shouldRefuseADirectoryAnotherUserOwns() throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("theirs"));
        if (ownUid() == 0) {
            UserPrincipal nobody = dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
            Files.setOwner(dir, nobody); // root can make a directory someone else's
        } else {
            dir = Path.of("/"); // as anyone else, the root directory is another user's
        }
        Path target = dir;

        StateDirectory.Refused e = assertThrows(StateDirectory.Refused.class, () -> StateDirectory.open(target));

        assertTrue(e.getMessage().contains("belongs to another user"), e.getMessage());
    }

    private static int ownUid() throws IOException {
        return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
    }

    private static String mode(Path p) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    }
}
