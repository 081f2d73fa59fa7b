package com.example.crawl.egress.health;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A self-signed EC P-256 certificate (by default for {@code localhost} and {@code 127.0.0.1}),
 * generated at test time by the JDK's own {@code keytool} (no key material is checked in), valid
 * for two days.
 *
 * <p>Immutable once generated; the contexts it hands out are fresh each call.
 */
public final class TestCertificate {

    private static final char[] PASSWORD = "changeit".toCharArray();
    private static final String ALIAS = "target";

    private final KeyStore keys;

    private TestCertificate(KeyStore keys) {
        this.keys = keys;
    }

    /** Runs keytool to write {@code dir/localhost.p12} for localhost and 127.0.0.1, and loads it. */
    public static TestCertificate generate(Path dir) throws IOException, GeneralSecurityException {
        return generate(dir, "localhost", "SAN=dns:localhost,ip:127.0.0.1");
    }

    /**
     * A certificate for {@code name} only (no IP address): served on loopback and reached as
     * localhost, it is a trusted certificate with the wrong host name.
     */
    public static TestCertificate generateFor(Path dir, String name) throws IOException, GeneralSecurityException {
        return generate(dir, name, "SAN=dns:" + name);
    }

    private static TestCertificate generate(Path dir, String cn, String san) throws IOException, GeneralSecurityException {
        Files.createDirectories(dir);
        Path store = dir.resolve(cn + ".p12");
        Files.deleteIfExists(store);
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        Process p = new ProcessBuilder(keytool.toString(), "-genkeypair", "-alias", ALIAS, "-keyalg", "EC",
                "-groupname", "secp256r1", "-dname", "CN=" + cn, "-ext", san,
                "-validity", "2", "-storetype", "PKCS12", "-keystore", store.toString(),
                "-storepass", new String(PASSWORD), "-keypass", new String(PASSWORD))
                .redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes());
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException("keytool failed: " + output);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running keytool", e);
        }
        return load(store);
    }

    /** Loads a key store {@link #generate} wrote, e.g. in another JVM that serves it. */
    public static TestCertificate load(Path store) throws IOException, GeneralSecurityException {
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            keys.load(in, PASSWORD);
        }
        return new TestCertificate(keys);
    }

    /** A server context presenting the certificate. */
    public SSLContext serverContext() throws GeneralSecurityException {
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(keys, PASSWORD);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(kmf.getKeyManagers(), null, null);
        return context;
    }

    /** A client context that trusts this certificate and nothing else. */
    public SSLContext trustingContext() throws GeneralSecurityException, IOException {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry(ALIAS, certificate());
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, tmf.getTrustManagers(), null);
        return context;
    }

    public Certificate certificate() throws GeneralSecurityException {
        return keys.getCertificate(ALIAS);
    }
}
