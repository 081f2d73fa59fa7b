package com.example.crawl.egress.api;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;

/**
 * The Secret that holds a Managed Proxy's generated credentials: named after the Proxy
 * ({@link #name}), in its namespace, of type {@code kubernetes.io/basic-auth} (keys
 * {@code username} and {@code password}), labelled {@link Proxy#CREDENTIALS_SECRET_LABEL} so the
 * operator's cache holds it, and owned by the Proxy (a controller owner reference) so that
 * Kubernetes deletes it with the Proxy. Also reads credentials out of any Secret, for
 * {@code External} Proxies that name theirs.
 */
public final class CredentialsSecret {

    public static final String TYPE = "kubernetes.io/basic-auth";
    /**
     * Set on every Secret this operator generates since its proxies take lease credentials
     * ({@link LeaseCredentials}): an instance is made from its Proxy's Secret, so a Proxy whose
     * Secret carries it runs a Squid that takes them. An instance made before (from a Secret
     * without it) is lent with the Secret's credentials until the Secret is rotated.
     */
    public static final String LEASE_CREDENTIALS_ANNOTATION = "crawl.example.com/lease-credentials";
    static final String LEASE_CREDENTIALS_VERSION = "v1";
    /** Appended to the Proxy's name. */
    static final String SUFFIX = "-proxy-auth";
    private static final int MAX_NAME = 253;
    /** Characters of the Proxy's name kept when name and suffix would be too long. */
    private static final int KEPT = MAX_NAME - SUFFIX.length() - 17;

    private CredentialsSecret() {
    }

    /**
     * {@code <proxy name>-proxy-auth}. A Proxy name too long for that (over 242 characters) is cut
     * and followed by 16 characters of its hash, so every Proxy has a distinct, valid Secret name.
     */
    public static String name(String proxyName) {
        if (proxyName.length() + SUFFIX.length() <= MAX_NAME) {
            return proxyName + SUFFIX;
        }
        String kept = proxyName.substring(0, KEPT).replaceAll("[^a-z0-9]+$", "");
        return kept + "-" + InstanceName.base32(InstanceName.sha256(proxyName.getBytes(StandardCharsets.UTF_8)), 16)
                + SUFFIX;
    }

    /** The Secret holding {@code credentials} for {@code owner}, ready to create. */
    public static Secret build(Proxy owner, ProxyCredentials credentials) {
        OwnerReference ref = new OwnerReferenceBuilder()
                .withApiVersion(Proxy.GROUP + "/" + Proxy.VERSION).withKind("Proxy")
                .withName(owner.getMetadata().getName()).withUid(owner.getMetadata().getUid())
                .withController(true).build();
        return new SecretBuilder()
                .withNewMetadata()
                    .withNamespace(owner.getMetadata().getNamespace())
                    .withName(name(owner.getMetadata().getName()))
                    .withLabels(Map.of(Proxy.CREDENTIALS_SECRET_LABEL, "true"))
                    .withAnnotations(Map.of(LEASE_CREDENTIALS_ANNOTATION, LEASE_CREDENTIALS_VERSION))
                    .withOwnerReferences(ref)
                .endMetadata()
                .withType(TYPE)
                .withData(Map.of(
                        Endpoint.CredentialsSecretRef.DEFAULT_USERNAME_KEY, encode(credentials.username()),
                        Endpoint.CredentialsSecretRef.DEFAULT_PASSWORD_KEY, encode(credentials.password())))
                .build();
    }

    /**
     * Whether a proxy with this spec demands credentials: every Managed proxy does, an External one
     * when it names a Secret.
     */
    public static boolean required(ProxySpec spec) {
        return spec.mode() == ProxySpec.Mode.Managed
                || spec.endpoint() != null && spec.endpoint().credentialsSecretRef() != null;
    }

    /**
     * The credentials {@code proxy} demands, read from the Secret {@code secrets} finds by
     * namespace and name: a Managed Proxy's own Secret (only when the Proxy owns it), or the one an
     * External Proxy names. Empty when none is needed, the Secret is missing or not the Proxy's, or
     * it holds no usable credentials; the prober then goes without and sees the proxy's 407.
     */
    public static Optional<ProxyCredentials> find(Proxy proxy, BiFunction<String, String, Optional<Secret>> secrets) {
        return find(proxy, secrets, CredentialsSecret::read);
    }

    /** Reads credentials from two keys of a Secret, as {@link #read(Secret, String, String)} does. */
    @FunctionalInterface
    public interface Reader {
        ProxyCredentials read(Secret secret, String usernameKey, String passwordKey) throws Invalid;
    }

    /** {@link #find(Proxy, BiFunction)}, reading the Secret found with {@code reader}. */
    public static Optional<ProxyCredentials> find(Proxy proxy, BiFunction<String, String, Optional<Secret>> secrets,
            Reader reader) {
        ProxySpec spec = proxy.getSpec();
        if (spec == null || !required(spec)) {
            return Optional.empty();
        }
        String namespace = proxy.getMetadata().getNamespace();
        try {
            if (spec.mode() == ProxySpec.Mode.External) {
                Endpoint.CredentialsSecretRef ref = spec.endpoint().credentialsSecretRef();
                Optional<Secret> named = ref.name() == null ? Optional.empty() : secrets.apply(namespace, ref.name());
                return named.isEmpty() ? Optional.empty()
                        : Optional.of(reader.read(named.get(), ref.usernameKey(), ref.passwordKey()));
            }
            Optional<Secret> own = own(proxy, secrets);
            return own.isEmpty() ? Optional.empty() : Optional.of(reader.read(own.get(),
                    Endpoint.CredentialsSecretRef.DEFAULT_USERNAME_KEY, Endpoint.CredentialsSecretRef.DEFAULT_PASSWORD_KEY));
        } catch (Invalid e) {
            return Optional.empty();
        }
    }

    /**
     * Whether a lease of {@code proxy} is lent with lease credentials rather than the proxy's own:
     * a Managed Proxy whose own Secret carries {@link #LEASE_CREDENTIALS_ANNOTATION}. An External
     * proxy's Squid is not the operator's, so it never is.
     */
    public static boolean leaseScoped(Proxy proxy, BiFunction<String, String, Optional<Secret>> secrets) {
        ProxySpec spec = proxy.getSpec();
        if (spec == null || spec.mode() != ProxySpec.Mode.Managed) {
            return false;
        }
        return own(proxy, secrets)
                .map(s -> s.getMetadata().getAnnotations())
                .map(a -> LEASE_CREDENTIALS_VERSION.equals(a.get(LEASE_CREDENTIALS_ANNOTATION)))
                .orElse(false);
    }

    /** A Managed Proxy's own Secret, only when the Proxy owns it. */
    private static Optional<Secret> own(Proxy proxy, BiFunction<String, String, Optional<Secret>> secrets) {
        return secrets.apply(proxy.getMetadata().getNamespace(), name(proxy.getMetadata().getName()))
                .filter(s -> ownedBy(s, proxy.getMetadata().getUid()));
    }

    /** Whether {@code secret} names the Proxy with {@code uid} as its controller. */
    public static boolean ownedBy(Secret secret, String uid) {
        List<OwnerReference> refs = secret.getMetadata().getOwnerReferences();
        return uid != null && refs != null && refs.stream()
                .anyMatch(r -> uid.equals(r.getUid()) && "Proxy".equals(r.getKind()) && Boolean.TRUE.equals(r.getController()));
    }

    /** The Managed Proxy's credentials from its own Secret. */
    public static ProxyCredentials read(Secret secret) throws Invalid {
        return read(secret, Endpoint.CredentialsSecretRef.DEFAULT_USERNAME_KEY,
                Endpoint.CredentialsSecretRef.DEFAULT_PASSWORD_KEY);
    }

    /**
     * The credentials in two keys of {@code secret}.
     *
     * @throws Invalid when a key is missing, not base64, not UTF-8, or the pair is not usable for
     *                 Basic authentication; the message names the Secret and key, never a value
     */
    public static ProxyCredentials read(Secret secret, String usernameKey, String passwordKey) throws Invalid {
        String where = "Secret " + secret.getMetadata().getNamespace() + "/" + secret.getMetadata().getName();
        try {
            return new ProxyCredentials(value(secret, usernameKey, where), value(secret, passwordKey, where));
        } catch (IllegalArgumentException e) {
            throw new Invalid(where + ": " + e.getMessage());
        }
    }

    private static String value(Secret secret, String key, String where) throws Invalid {
        Map<String, String> data = secret.getData();
        String encoded = data == null ? null : data.get(key);
        if (encoded == null) {
            throw new Invalid(where + " has no key \"" + key + "\"");
        }
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(Base64.getDecoder().decode(encoded))).toString();
        } catch (IllegalArgumentException | CharacterCodingException e) {
            throw new Invalid(where + " key \"" + key + "\" is not base64-encoded UTF-8");
        }
    }

    private static String encode(String value) {
        return Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.UTF_8));
    }

    /** A Secret does not hold usable credentials; the message names it and never a value. */
    public static final class Invalid extends Exception {
        Invalid(String message) {
            super(message);
        }
    }
}
