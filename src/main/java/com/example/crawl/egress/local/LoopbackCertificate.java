package com.example.crawl.egress.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A self-signed certificate for {@code 127.0.0.1} and its key, made at every start and kept in
 * memory only: what {@link KubectlFront} serves TLS with. kubectl sends a kubeconfig's credentials
 * only over TLS, so the front needs one for the {@link ApiToken} to reach it; the kubeconfig trusts
 * exactly this certificate ({@link #pem}). Immutable.
 */
final class LoopbackCertificate {

    private static final Duration VALIDITY = Duration.ofDays(3650); // a new one every start: the span does not matter
    private static final char[] NO_PASSWORD = new char[0];

    private final X509Certificate certificate;
    private final SSLContext sslContext;

    private LoopbackCertificate(X509Certificate certificate, SSLContext sslContext) {
        this.certificate = certificate;
        this.sslContext = sslContext;
    }

    static LoopbackCertificate generate() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(256);
            KeyPair keys = generator.generateKeyPair();
            X500Name name = new X500Name("CN=egress-proxies-operator local mode");
            Instant now = Instant.now();
            JcaX509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(name,
                    new BigInteger(64, new SecureRandom()), Date.from(now.minus(Duration.ofMinutes(5))),
                    Date.from(now.plus(VALIDITY)), name, keys.getPublic());
            builder.addExtension(Extension.subjectAlternativeName, false,
                    new GeneralNames(new GeneralName(GeneralName.iPAddress, "127.0.0.1")));
            X509Certificate certificate = new JcaX509CertificateConverter().getCertificate(
                    builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(keys.getPrivate())));
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry("front", keys.getPrivate(), NO_PASSWORD, new X509Certificate[] {certificate});
            KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keyManagers.init(store, NO_PASSWORD);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keyManagers.getKeyManagers(), null, null);
            return new LoopbackCertificate(certificate, context);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException | OperatorCreationException e) {
            throw new IllegalStateException("cannot make a certificate for the embedded API: " + e.getMessage(), e);
        }
    }

    /** The server side: this certificate and its key. */
    SSLContext sslContext() {
        return sslContext;
    }

    /** The certificate in PEM, for a kubeconfig's {@code certificate-authority-data}. */
    String pem() {
        try {
            return "-----BEGIN CERTIFICATE-----\n"
                    + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                            .encodeToString(certificate.getEncoded())
                    + "\n-----END CERTIFICATE-----\n";
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
