package com.example.crawl.egress.client;

import com.example.crawl.egress.runtime.EventSink;
import com.example.crawl.egress.runtime.HandlerSync;
import com.example.crawl.egress.runtime.ObjectEvent;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a {@link ClientRegistry} to the client Secrets of one namespace: an informer over the
 * Secrets labelled {@value ClientSecret#LABEL}{@code =true} there (no other Secret is cached). A
 * Secret that parses is registered (its token replacing the old one at once); one that does not
 * is refused with a Warning Event on it and a log line, and removes the client it defined before,
 * so that a bad edit revokes rather than keeps an old scope; a deleted one is removed. Events arrive
 * within milliseconds of the change, well inside the second the API promises.
 *
 * <p>Lifecycle: {@link #start} once; {@link #close} stops the informer and is idempotent.
 */
public final class ClientSecrets implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ClientSecrets.class);

    private final SharedIndexInformer<Secret> informer;
    private final String namespace;
    private final HandlerSync handled = new HandlerSync();

    public ClientSecrets(KubernetesClient client, String namespace, ClientRegistry registry, EventSink events) {
        this.namespace = namespace;
        this.informer = client.secrets().inNamespace(namespace).withLabel(ClientSecret.LABEL, "true")
                .runnableInformer(0);
        informer.addEventHandler(new Handler(registry, events, handled));
    }

    public void start() {
        informer.start();
        LOG.atInfo().addKeyValue("namespace", namespace).log("Watching discovery client Secrets");
    }

    /**
     * Whether the clients of the first list are registered (or refused): before, every client's
     * token is refused.
     */
    public boolean hasSynced() {
        return handled.synced(informer);
    }

    /** Whether the informer's store holds the first list, whatever its handler has done with it. */
    boolean listed() {
        return informer.hasSynced();
    }

    @Override
    public void close() {
        informer.close();
    }

    private record Handler(ClientRegistry registry, EventSink events, HandlerSync handled)
            implements ResourceEventHandler<Secret> {

        @Override
        public void onAdd(Secret secret) {
            changed(secret);
            handled.took(secret);
        }

        @Override
        public void onUpdate(Secret before, Secret after) {
            if (!before.getMetadata().getName().equals(after.getMetadata().getName())) {
                registry.remove(before.getMetadata().getName());
            }
            changed(after);
            handled.took(after);
        }

        @Override
        public void onDelete(Secret secret, boolean finalStateUnknown) {
            handled.deleted(secret);
            String name = secret.getMetadata().getName();
            if (registry.has(name)) {
                registry.remove(name);
                LOG.atInfo().addKeyValue("client", name).log("Removed discovery client");
            }
        }

        private void changed(Secret secret) {
            String name = secret.getMetadata().getName();
            Client client;
            try {
                client = ClientSecret.parse(secret);
            } catch (ClientSecret.Refused e) {
                refuse(secret, e.getMessage());
                return;
            }
            if (!registry.put(client)) {
                refuse(secret, "its token is another client's; each client needs a token of its own");
                return;
            }
            LOG.atInfo().addKeyValue("client", name).addKeyValue("namespaces", client.scope().namespaces()
                            .map(n -> String.join(",", n.stream().sorted().toList())).orElse("*"))
                    .addKeyValue("selector", client.scope().selector()).addKeyValue("access", client.access())
                    .log("Registered discovery client");
        }

        private void refuse(Secret secret, String reason) {
            String name = secret.getMetadata().getName();
            registry.remove(name);
            LOG.atWarn().addKeyValue("secret", secret.getMetadata().getNamespace() + "/" + name)
                    .addKeyValue("reason", reason).log("Refused a discovery client Secret; it grants nothing");
            events.record(ObjectEvent.about(secret, ClientEventReason.ClientRefused,
                    "This Secret defines no discovery client: " + reason));
        }
    }
}
