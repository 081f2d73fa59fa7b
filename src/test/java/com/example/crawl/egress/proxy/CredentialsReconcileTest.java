package com.example.crawl.egress.proxy;

import static com.example.crawl.egress.proxy.Rig.INTERVALS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.CredentialsSecret;
import com.example.crawl.egress.api.Phase;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyCredentials;
import com.example.crawl.egress.api.Reason;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.provider.FakeProvider.Op;
import com.example.crawl.egress.runtime.Outcome;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A Managed Proxy's generated credentials through the reconciler: made, kept, rotated, refused, deleted. */
class CredentialsReconcileTest {

    private final Rig rig = new Rig();

    @Test
    void shouldGenerateTheCredentialsIntoTheProxysOwnSecretAndCreateTheInstanceWithThem() throws Exception {
        ProxyKey key = rig.create("p1", Rig.managed());

        rig.reconcile(key);

        Secret secret = secret(key);
        Proxy proxy = rig.stored(key).orElseThrow();
        assertTrue(CredentialsSecret.ownedBy(secret, proxy.getMetadata().getUid()));
        assertEquals(CredentialsSecret.TYPE, secret.getType());
        ProxyCredentials generated = CredentialsSecret.read(secret);
        assertEquals(generated, rig.provider.request(rig.status(key).providerID()).orElseThrow().credentials());
        assertEquals(List.of("create p1-proxy-auth"), rig.store.secretWrites());
    }

    @Test
    void shouldNeverMakeSecondCredentialsWhileTheCacheHasNotSeenItsSecretYet() {
        ProxyKey key = rig.create("p1", Rig.managed());
        rig.reconcile(key);
        String version = rig.credentialsVersion(key);
        rig.store.lagSecretCache(true);

        rig.provider.markRunning(rig.status(key).providerID(), "10.0.0.7");
        assertEquals(Outcome.after(INTERVALS.driftPoll()), rig.reconcile(key));

        assertEquals(version, rig.credentialsVersion(key));
        assertEquals(1, rig.provider.calls(Op.CREATE), "the 409 led back to the same Secret: no replacement");
        assertEquals(0, rig.provider.calls(Op.DELETE));
    }

    @Test
    void shouldReplaceTheInstanceWithNewCredentialsWhenTheSecretIsDeleted() throws Exception {
        ProxyKey key = running("p1");
        String id = rig.status(key).providerID();
        ProxyCredentials before = CredentialsSecret.read(secret(key));

        rig.deleteSecretAsUser(Rig.NAMESPACE, "p1-proxy-auth");
        assertEquals(Outcome.after(INTERVALS.deletionPoll()), rig.reconcile(key));
        assertTrue(rig.condition(key, Condition.PROVISIONED).hasReason(Reason.Replacing));
        rig.reconcile(key);
        rig.reconcile(key);

        ProxyCredentials after = CredentialsSecret.read(secret(key));
        assertNotEquals(before, after);
        assertEquals(2, rig.provider.calls(Op.CREATE));
        assertEquals(after, rig.provider.request(id).orElseThrow().credentials(), "the successor demands the new ones");
    }

    @Test
    void shouldKeepTheInstanceWhenTheSecretsDataIsChangedInPlace() {
        ProxyKey key = running("p1");

        rig.editSecretData(Rig.NAMESPACE, "p1-proxy-auth", Map.of("username", "someone", "password", "else"));

        assertEquals(Outcome.after(INTERVALS.driftPoll()), rig.reconcile(key));
        assertEquals(1, rig.provider.calls(Op.CREATE), "rotation is deleting the Secret, not editing it");
    }

    @Test
    void shouldRefuseASecretOfThatNameThatIsNotTheProxysAndCreateNothing() {
        Secret foreign = new SecretBuilder().withNewMetadata().withNamespace(Rig.NAMESPACE).withName("p1-proxy-auth")
                .addToLabels(Proxy.CREDENTIALS_SECRET_LABEL, "true").endMetadata()
                .withData(Map.of("username", "dXNlcg==", "password", "cGFzcw==")).build();
        rig.putForeignSecret(foreign);
        ProxyKey key = rig.create("p1", Rig.managed());

        Outcome.Failed failed = assertInstanceOf(Outcome.Failed.class, rig.reconcile(key));

        assertTrue(failed.message().contains("is not this Proxy's"), failed.message());
        assertTrue(rig.condition(key, Condition.PROVISIONED).hasReason(Reason.CredentialsError));
        assertEquals(Phase.Pending, rig.status(key).phase());
        assertEquals(0, rig.provider.calls(Op.CREATE));
        assertEquals(List.of(), rig.store.secretWrites(), "someone else's Secret is left alone");
    }

    @Test
    void shouldAskForAnUnusableSecretToBeDeletedAndNeverShowItsContent() {
        ProxyKey key = running("p1");
        rig.editSecretData(Rig.NAMESPACE, "p1-proxy-auth", Map.of("username", "only-a-user"));

        Outcome.Failed failed = assertInstanceOf(Outcome.Failed.class, rig.reconcile(key));

        assertTrue(failed.message().contains("has no key \"password\"") && failed.message().contains("delete the Secret"),
                failed.message());
        assertFalse(rig.condition(key, Condition.PROVISIONED).message().contains("only-a-user"));
        assertEquals(1, rig.provider.calls(Op.CREATE));
    }

    @Test
    void shouldDeleteTheSecretWithTheProxy() {
        ProxyKey key = running("p1");
        rig.delete(key);

        rig.reconcile(key);
        assertTrue(rig.storedSecret(Rig.NAMESPACE, "p1-proxy-auth").isPresent(), "kept while the instance exists");
        assertEquals(Outcome.DONE, rig.reconcile(key));

        assertTrue(rig.stored(key).isEmpty());
        assertTrue(rig.storedSecret(Rig.NAMESPACE, "p1-proxy-auth").isEmpty());
    }

    @Test
    void shouldDeleteTheSecretAlsoWhenTheInstanceIsAbandoned() {
        ProxyKey key = running("p1");
        rig.annotate(key, Proxy.SKIP_CLEANUP_ANNOTATION, "true");
        rig.delete(key);

        assertEquals(Outcome.DONE, rig.reconcile(key));

        assertTrue(rig.storedSecret(Rig.NAMESPACE, "p1-proxy-auth").isEmpty());
    }

    @Test
    void shouldLeaveASecretOfThatNameAloneOnDeletionWhenTheProxyDoesNotOwnIt() {
        ProxyKey key = running("p1");
        rig.deleteSecretAsUser(Rig.NAMESPACE, "p1-proxy-auth");
        rig.putForeignSecret(new SecretBuilder().withNewMetadata().withNamespace(Rig.NAMESPACE)
                .withName("p1-proxy-auth").endMetadata().build());
        rig.annotate(key, Proxy.SKIP_CLEANUP_ANNOTATION, "true");
        rig.delete(key);

        assertEquals(Outcome.DONE, rig.reconcile(key));

        assertTrue(rig.storedSecret(Rig.NAMESPACE, "p1-proxy-auth").isPresent());
    }

    private Secret secret(ProxyKey key) {
        return rig.storedSecret(key.namespace(), CredentialsSecret.name(key.name())).orElseThrow();
    }

    private ProxyKey running(String name) {
        ProxyKey key = rig.create(name, Rig.managed());
        rig.reconcile(key);
        rig.provider.markRunning(rig.status(key).providerID(), "10.0.0.7");
        assertEquals(Outcome.after(INTERVALS.driftPoll()), rig.reconcile(key));
        return key;
    }
}
