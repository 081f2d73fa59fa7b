package com.example.crawl.egress.proxy;

import com.example.crawl.egress.api.CloudInit;
import com.example.crawl.egress.api.Proxy;
import io.fabric8.kubernetes.api.model.Secret;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;

/**
 * Resolves a Proxy's {@code spec.cloudInit} to the user data itself: inline as written, or read
 * from the referenced key of a labelled Secret in the Proxy's namespace.
 */
final class CloudInitSource {

    private CloudInitSource() {
    }

    /**
     * The user data, or null when the Proxy has none.
     *
     * @throws Unavailable when the Secret is missing, unlabelled (and so invisible to the
     *                     operator), lacks the key, or holds something that is not base64
     */
    static String resolve(Proxy proxy, ProxyStore store) throws Unavailable {
        CloudInit cloudInit = proxy.getSpec().cloudInit();
        if (cloudInit == null) {
            return null;
        }
        if (cloudInit.secretRef() == null) {
            return cloudInit.userData();
        }
        String namespace = proxy.getMetadata().getNamespace();
        CloudInit.SecretKeyRef ref = cloudInit.secretRef();
        Secret secret = store.cloudInitSecret(namespace, ref.name()).orElseThrow(() -> new Unavailable(
                "Secret " + namespace + "/" + ref.name() + " not found, or not labelled "
                        + Proxy.CLOUD_INIT_SECRET_LABEL + "=true"));
        Map<String, String> data = secret.getData();
        String encoded = data == null ? null : data.get(ref.key());
        if (encoded == null) {
            throw new Unavailable("Secret " + namespace + "/" + ref.name() + " has no key \"" + ref.key() + "\"");
        }
        try {
            return new String(Base64.getDecoder().decode(encoded), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new Unavailable("Secret " + namespace + "/" + ref.name() + " key \"" + ref.key()
                    + "\" is not valid base64");
        }
    }

    /** The referenced cloud-init cannot be read; the message names the Secret and never its content. */
    static final class Unavailable extends Exception {
        Unavailable(String message) {
            super(message);
        }
    }
}
