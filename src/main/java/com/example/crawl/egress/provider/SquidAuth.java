package com.example.crawl.egress.provider;

import com.example.crawl.egress.api.LeaseCredentials;
import com.example.crawl.egress.api.ProxyCredentials;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * How every Squid the operator writes authenticates: its own Perl helper ({@value #HELPER_FILE},
 * run by {@value #PERL}, which Debian's and Ubuntu's Squid packages bring), reading three files
 * the provider puts in one directory beside each other:
 *
 * <ul>
 *   <li>{@value #PASSWORD_FILE}, the proxy's own credentials hashed ({@link PasswordFile}): the
 *       operator's probe authenticates with them;</li>
 *   <li>{@value #KEY_FILE}, the proxy's lease key ({@link LeaseCredentials#keyFile}), with which
 *       the helper verifies a lease's credentials and their expiry itself;</li>
 *   <li>the helper.</li>
 * </ul>
 *
 * <p>Where the proxy can reach the operator (local mode, pods in the cluster), the helper is also
 * given the operator's discovery URL and the Proxy's {@code namespace/name}, and asks for the
 * proxy's lease list at most every two seconds, so that a lease that ends early ends its
 * credentials too. Squid keeps an accepted credential {@value #CREDENTIALS_TTL_SECONDS} seconds
 * before it asks the helper again.
 */
public final class SquidAuth {

    /** Where Debian and Ubuntu install Perl; the pods' image and the VMs run one of those. */
    public static final String PERL = "/usr/bin/perl";
    public static final String PASSWORD_FILE = "passwd";
    public static final String KEY_FILE = "lease.key";
    public static final String HELPER_FILE = "lease_auth.pl";
    /** Squid's {@code credentialsttl}: how long an accepted credential is not checked again. */
    public static final int CREDENTIALS_TTL_SECONDS = 2;
    /**
     * The documented bound on how long lease credentials outlive their lease where the proxy can
     * learn of its end: the helper's two-second list, then Squid's two seconds, and a second for
     * the list's round trip.
     */
    public static final int GRACE_SECONDS = 5;

    private static final String HELPER = load();

    private SquidAuth() {
    }

    /**
     * Where a proxy's helper asks for its lease list.
     *
     * @param operator the operator's discovery URL as the proxy reaches it
     * @param proxyKey the Proxy's {@code namespace/name}
     */
    public record LeaseList(URI operator, String proxyKey) {
        public LeaseList {
            Objects.requireNonNull(operator, "operator");
            Objects.requireNonNull(proxyKey, "proxyKey");
        }
    }

    /** The three files' names and contents, in the order a provider writes them. */
    public static Map<String, String> files(ProxyCredentials credentials, SecureRandom random) {
        Map<String, String> files = new LinkedHashMap<>();
        files.put(PASSWORD_FILE, PasswordFile.content(credentials, random));
        files.put(KEY_FILE, LeaseCredentials.keyFile(credentials));
        files.put(HELPER_FILE, HELPER);
        return files;
    }

    /** The helper's source, as written beside the other two files. */
    public static String helper() {
        return HELPER;
    }

    /**
     * The {@code auth_param basic program} value: Perl running the helper in {@code directory}
     * (ending without {@code /}; relative paths are resolved from Squid's working directory).
     */
    public static String program(String perl, String directory, Optional<LeaseList> list) {
        String dir = directory.isEmpty() ? "" : directory + "/";
        String program = perl + " " + dir + HELPER_FILE + " " + dir + PASSWORD_FILE + " " + dir + KEY_FILE;
        return list.map(l -> program + " " + l.operator().toString().replaceAll("/+$", "") + " " + l.proxyKey())
                .orElse(program);
    }

    private static String load() {
        try (InputStream in = SquidAuth.class.getResourceAsStream(HELPER_FILE)) {
            if (in == null) {
                throw new IllegalStateException(HELPER_FILE + " is missing from the jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
