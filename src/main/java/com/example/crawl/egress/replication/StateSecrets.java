package com.example.crawl.egress.replication;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The two Secrets the lease service keeps in the leader-election namespace, both labelled
 * {@value #LABEL}{@code =<election id>}: {@code <id>-lease-state}, the state the leader writes, and
 * {@code <id>-lease-key}, the key lease ids are signed with. Secrets, not ConfigMaps, because
 * the key is a credential and the state names which proxies are banned where: both are readable only by
 * whom RBAC grants Secrets in that namespace, the operator's ServiceAccount.
 *
 * <p>The state Secret's data: {@code format} (this build writes and reads {@value #FORMAT}),
 * {@code term}, {@code leader} ({@code <identity> <url>} while a leader serves, absent while none
 * does), and {@code state} ({@link StateCodec}). Every write of it is a PUT with the
 * {@code resourceVersion} last seen, so a write based on an older state is refused (409) instead of
 * overwriting a newer leader's.
 */
public final class StateSecrets extends StateStore {

    /** The label both Secrets carry, valued with the election id. */
    static final String LABEL = "crawl.example.com/lease-state";
    /** The format this build writes; it reads this one and the one before, and refuses a greater one. */
    static final int FORMAT = 2;
    static final String STATE_TYPE = "crawl.example.com/lease-state";
    static final String KEY_TYPE = "crawl.example.com/lease-key";
    private static final String MANAGED_BY = "app.kubernetes.io/managed-by";

    /**
     * The leader serving leases, as the state names it: its identity (the election's), and the URL
     * other replicas pass lease calls on to, when it advertises one. Written {@code identity url},
     * or {@code identity} alone.
     */
    public record Leader(String identity, Optional<URI> url) {
        public Leader(String identity, URI url) {
            this(identity, Optional.of(url));
        }

        String encode() {
            return url.map(u -> identity + " " + u).orElse(identity);
        }

        static Optional<Leader> decode(String value) {
            int space = value.indexOf(' ');
            if (space < 0) {
                return value.isEmpty() ? Optional.empty() : Optional.of(new Leader(value, Optional.empty()));
            }
            if (space == 0) {
                return Optional.empty();
            }
            try {
                return Optional.of(new Leader(value.substring(0, space), URI.create(value.substring(space + 1))));
            } catch (IllegalArgumentException e) {
                return Optional.empty();
            }
        }
    }

    /**
     * The state Secret as read. A {@code format} or {@code term} that is missing or not a number
     * reads as 0: an object edited so that it cannot be trusted, which the leader rebuilds.
     */
    record Stored(String resourceVersion, int format, long term, Optional<Leader> leader, Optional<byte[]> state) {

        static Stored of(Secret secret) {
            Map<String, String> data = secret.getData() == null ? Map.of() : secret.getData();
            return new Stored(secret.getMetadata().getResourceVersion(), (int) number(data.get("format")),
                    number(data.get("term")), Optional.ofNullable(data.get("leader")).map(StateSecrets::text)
                            .flatMap(Leader::decode), Optional.ofNullable(data.get("state")).flatMap(StateSecrets::bytes));
        }

        private static long number(String base64) {
            try {
                return base64 == null ? 0 : Long.parseLong(text(base64));
            } catch (NumberFormatException e) {
                return 0;
            }
        }
    }

    /** The state Secret changed since it was last read: a write based on it was refused. */
    static final class Conflict extends Exception {
        Conflict() {
            super("the lease state changed since it was read", null, false, false);
        }
    }

    private final KubernetesClient client;
    private final String namespace;
    private final String id;

    /**
     * @param namespace the leader-election namespace
     * @param id        the election id: the Secrets' name prefix and label value
     */
    public StateSecrets(KubernetesClient client, String namespace, String id) {
        this.client = client;
        this.namespace = namespace;
        this.id = id;
    }

    @Override
    String stateName() {
        return id + "-lease-state";
    }

    @Override
    String keyName() {
        return id + "-lease-key";
    }

    @Override
    String namespace() {
        return namespace;
    }

    /** The state Secret now, from the API server (not a cache); empty when there is none. */
    @Override
    Optional<Stored> read() {
        return Optional.ofNullable(client.secrets().inNamespace(namespace).withName(stateName()).get()).map(Stored::of);
    }

    /**
     * Writes the state: creates the Secret when {@code resourceVersion} is empty, else replaces the
     * one of that version. Returns the new {@code resourceVersion}.
     *
     * @throws Conflict when the Secret exists though none was expected, or has another version
     */
    @Override
    String write(Optional<String> resourceVersion, long term, Optional<Leader> leader, byte[] state) throws Conflict {
        SecretBuilder secret = new SecretBuilder().withNewMetadata().withNamespace(namespace).withName(stateName())
                .withResourceVersion(resourceVersion.orElse(null))
                .withLabels(Map.of(LABEL, id, MANAGED_BY, "egress-proxies-operator")).endMetadata()
                .withType(STATE_TYPE)
                .addToData("format", base64(Integer.toString(FORMAT).getBytes(StandardCharsets.US_ASCII)))
                .addToData("term", base64(Long.toString(term).getBytes(StandardCharsets.US_ASCII)))
                .addToData("state", base64(state));
        leader.ifPresent(l -> secret.addToData("leader", base64(l.encode().getBytes(StandardCharsets.UTF_8))));
        try {
            var resource = client.secrets().inNamespace(namespace).resource(secret.build());
            Secret written = resourceVersion.isEmpty() ? resource.create() : resource.update();
            return written.getMetadata().getResourceVersion();
        } catch (KubernetesClientException e) {
            if (e.getCode() == HttpURLConnection.HTTP_CONFLICT) {
                throw new Conflict();
            }
            throw e;
        }
    }

    /**
     * The signing key: read, or made and stored when there is none. Two replicas making one at once
     * both end with the one the API server took first.
     */
    @Override
    public byte[] key(Supplier<byte[]> newKey) {
        for (int attempt = 0; ; attempt++) {
            Secret existing = client.secrets().inNamespace(namespace).withName(keyName()).get();
            if (existing != null) {
                Optional<byte[]> key = Optional.ofNullable(existing.getData()).map(d -> d.get("key"))
                        .flatMap(StateSecrets::bytes);
                if (key.isPresent()) {
                    return key.get();
                }
                throw new IllegalStateException("Secret " + namespace + "/" + keyName() + " has no key: delete it so "
                        + "that a new one is made (every lease granted so far then stops taking reports)");
            }
            try {
                storeKey(newKey.get());
            } catch (KubernetesClientException e) {
                if (e.getCode() != HttpURLConnection.HTTP_CONFLICT || attempt > 0) {
                    throw e;
                }
            }
        }
    }

    /** Stores {@code key} as the signing key; 409 when one is there. */
    @Override
    void storeKey(byte[] key) {
        client.secrets().inNamespace(namespace).resource(new SecretBuilder().withNewMetadata().withNamespace(namespace)
                .withName(keyName()).withLabels(Map.of(LABEL, id, MANAGED_BY, "egress-proxies-operator")).endMetadata()
                .withType(KEY_TYPE).addToData("key", base64(key)).build()).create();
    }

    /** Watches both Secrets; not started. */
    @Override
    SharedIndexInformer<Secret> informer(ResourceEventHandler<Secret> handler) {
        SharedIndexInformer<Secret> informer = client.secrets().inNamespace(namespace).withLabel(LABEL, id)
                .runnableInformer(0);
        informer.addEventHandler(handler);
        return informer;
    }

    private static String base64(byte[] bytes) {
        return Base64.getEncoder().encodeToString(bytes);
    }

    private static String text(String base64) {
        return bytes(base64).map(b -> new String(b, StandardCharsets.UTF_8)).orElse("");
    }

    private static Optional<byte[]> bytes(String base64) {
        try {
            return Optional.of(Base64.getDecoder().decode(base64));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
