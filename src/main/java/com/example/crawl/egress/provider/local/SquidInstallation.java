package com.example.crawl.egress.provider.local;

import com.example.crawl.egress.config.ConfigException;
import com.example.crawl.egress.provider.SquidAuth;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.nio.file.attribute.UserPrincipalNotFoundException;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The Squid this machine has, as the local provider runs it: the binary, the Perl that runs the
 * operator's auth helper ({@code SquidAuth}; Debian's and Ubuntu's Squid packages depend on it),
 * and the unprivileged user it switches to when the operator runs
 * as root (Squid refuses to run as root), which must own what Squid opens after it switched.
 *
 * @param switchesTo empty when the operator is not root: Squid then stays the operator's user
 */
record SquidInstallation(Path squid, Path perl, Optional<UserPrincipal> switchesTo) {

    /** Users Squid may switch to when started as root, in order of preference (Debian's first). */
    private static final List<String> SQUID_USERS = List.of("proxy", "squid", "nobody");

    /**
     * Finds Squid, Perl and, for a root operator, the user to switch to.
     *
     * @param provider the provider's name, for messages
     * @throws ConfigException naming what is missing and how to install it
     */
    static SquidInstallation find(String squidBinary, String provider) throws ConfigException {
        Path binary = findSquid(squidBinary).orElseThrow(() -> new ConfigException("provider \"" + provider
                + "\": squid (\"" + squidBinary + "\") is not on the PATH; install it "
                + "(Debian/Ubuntu: apt-get install squid) or set squidBinary to its absolute path"));
        Path perl = Path.of(SquidAuth.PERL);
        if (!Files.isExecutable(perl)) {
            throw new ConfigException("provider \"" + provider + "\": " + perl + ", which runs the proxies' auth "
                    + "helper, is missing; it comes with Squid (Debian/Ubuntu: apt-get install squid)");
        }
        try {
            return new SquidInstallation(binary, perl, runningAsRoot() ? Optional.of(unprivilegedUser(binary))
                    : Optional.empty());
        } catch (IOException e) {
            throw new ConfigException("provider \"" + provider + "\": " + e.getMessage());
        }
    }

    /** The executable {@code name} names: itself when it is a path, else the first match on the PATH or in /usr/sbin. */
    static Optional<Path> findSquid(String name) {
        if (name.contains(File.separator)) {
            Path p = Path.of(name);
            return Files.isExecutable(p) ? Optional.of(p) : Optional.empty();
        }
        String path = System.getenv().getOrDefault("PATH", "") + File.pathSeparator + "/usr/sbin" + File.pathSeparator
                + "/sbin";
        return Stream.of(path.split(File.pathSeparator)).filter(d -> !d.isEmpty()).map(d -> Path.of(d, name))
                .filter(Files::isExecutable).findFirst();
    }

    /** Whether this process runs as root; {@code /proc/self} belongs to the process's effective user. */
    private static boolean runningAsRoot() throws IOException {
        return Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
    }

    /** The first of {@link #SQUID_USERS} this system knows. */
    private static UserPrincipal unprivilegedUser(Path anyPath) throws IOException {
        UserPrincipalLookupService users = anyPath.getFileSystem().getUserPrincipalLookupService();
        for (String name : SQUID_USERS) {
            try {
                return users.lookupPrincipalByName(name);
            } catch (UserPrincipalNotFoundException e) {
                // try the next
            }
        }
        throw new IOException("running as root, Squid needs an unprivileged user to switch to, and none of "
                + SQUID_USERS + " exists");
    }
}
