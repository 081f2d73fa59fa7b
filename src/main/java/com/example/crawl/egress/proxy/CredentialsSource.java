package com.example.crawl.egress.proxy;

import com.example.crawl.egress.api.CredentialsSecret;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyCredentials;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Secret;
import java.security.SecureRandom;
import java.util.List;
import java.util.Optional;

/**
 * A Managed Proxy's credentials: read from its Secret ({@link CredentialsSecret}), or generated
 * and stored there when the Secret does not exist yet. The Secret's UID is the credentials'
 * version, which the spec hash covers: a regenerated Secret replaces the instance.
 *
 * <p>The cache may lag behind a Secret this class just created. A create that finds the name
 * taken (409) therefore reads the Secret from the API server and uses it when the Proxy owns it,
 * so a lagging cache never leads to a second set of credentials. A Secret an earlier Proxy of the
 * same name left behind is deleted and replaced (see {@link #leftByNamesake}).
 */
final class CredentialsSource {

    /**
     * @param version identifies these credentials (the UID of their Secret)
     */
    record Resolved(ProxyCredentials credentials, String version) { }

    private CredentialsSource() {
    }

    /**
     * The Proxy's credentials, creating its Secret if needed (a write to the API server).
     *
     * @throws Unavailable when the Secret of that name is not the Proxy's, or holds no usable
     *                     credentials; the message says what to do, never a value
     */
    static Resolved resolve(Proxy proxy, ProxyStore store, SecureRandom random) throws Unavailable {
        String namespace = proxy.getMetadata().getNamespace();
        String name = CredentialsSecret.name(proxy.getMetadata().getName());
        Optional<Secret> cached = store.credentialsSecret(namespace, name);
        if (cached.isPresent() && !leftByNamesake(cached.get(), proxy)) {
            return use(proxy, cached.get());
        }
        if (cached.isPresent()) {
            store.deleteSecret(namespace, name);
        }
        Optional<Secret> created = store.createSecret(CredentialsSecret.build(proxy, ProxyCredentials.generate(random)));
        if (created.isPresent()) {
            return use(proxy, created.get());
        }
        Secret existing = store.readSecret(namespace, name).orElseThrow(() -> new Unavailable("Secret " + namespace
                + "/" + name + " existed when the credentials were created and was gone when read back; retrying"));
        if (leftByNamesake(existing, proxy)) {
            store.deleteSecret(namespace, name);
            throw new Unavailable("Secret " + namespace + "/" + name + " was left by an earlier Proxy of this name; "
                    + "deleted it, retrying");
        }
        return use(proxy, existing);
    }

    /**
     * Whether {@code secret} is the credentials Secret of an earlier Proxy of the same name, gone
     * since: its controller is a Proxy of this name with another UID, and two Proxies of one name
     * never exist at once. Kubernetes' garbage collector would delete it, later (local mode has
     * none); the Proxy that now has the name must not wait for that.
     */
    private static boolean leftByNamesake(Secret secret, Proxy proxy) {
        List<OwnerReference> refs = secret.getMetadata().getOwnerReferences();
        return refs != null && refs.stream().anyMatch(r -> Boolean.TRUE.equals(r.getController())
                && "Proxy".equals(r.getKind()) && (Proxy.GROUP + "/" + Proxy.VERSION).equals(r.getApiVersion())
                && proxy.getMetadata().getName().equals(r.getName()) && !proxy.getMetadata().getUid().equals(r.getUid()));
    }

    private static Resolved use(Proxy proxy, Secret secret) throws Unavailable {
        String where = "Secret " + secret.getMetadata().getNamespace() + "/" + secret.getMetadata().getName();
        if (!CredentialsSecret.ownedBy(secret, proxy.getMetadata().getUid())) {
            throw new Unavailable(where + " exists and is not this Proxy's; delete or rename it so that the "
                    + "operator can generate the Proxy's credentials there");
        }
        try {
            return new Resolved(CredentialsSecret.read(secret), secret.getMetadata().getUid());
        } catch (CredentialsSecret.Invalid e) {
            throw new Unavailable(e.getMessage() + "; delete the Secret to generate new credentials");
        }
    }

    /** The credentials cannot be had; the message names the Secret and never its content. */
    static final class Unavailable extends Exception {
        Unavailable(String message) {
            super(message);
        }
    }
}
