package com.example.crawl.egress.proxy;

import static com.example.crawl.egress.proxy.Rig.INTERVALS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.CredentialsSecret;
import com.example.crawl.egress.api.ProxyCredentials;
import com.example.crawl.egress.api.Reason;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.provider.FakeProvider.Op;
import com.example.crawl.egress.runtime.Outcome;
import io.fabric8.kubernetes.api.model.Secret;
import java.security.SecureRandom;
import org.junit.jupiter.api.Test;

/**
 * A Proxy deleted before its finalizer was on leaves its credentials Secret to Kubernetes' garbage
 * collector (none in local mode) or the orphan sweeper; a Proxy created again under the same name
 * in between must not wait for them (found by the crash suite: it stayed Failed until a sweep).
 */
class EarlierNamesakeSecretTest {

    private final Rig rig = new Rig();

    @Test
    void shouldReplaceTheSecretOfAnEarlierProxyOfTheSameNameAndProvision() {
        ProxyKey first = rig.create("p1", Rig.managed());
        Secret earlier = CredentialsSecret.build(rig.stored(first).orElseThrow(),
                ProxyCredentials.generate(new SecureRandom()));
        rig.store.createSecret(earlier);
        rig.delete(first);
        ProxyKey key = rig.create("p1", Rig.managed(), "uid-of-the-second");

        assertEquals(Outcome.after(INTERVALS.provisioningPoll()), rig.reconcile(key));

        Secret now = rig.storedSecret(Rig.NAMESPACE, "p1-proxy-auth").orElseThrow();
        assertEquals(true, CredentialsSecret.ownedBy(now, "uid-of-the-second"));
        assertNotEquals(earlier.getMetadata().getUid(), now.getMetadata().getUid());
        assertEquals(1, rig.provider.instances().size());
    }

    @Test
    void shouldReplaceTheSecretOfAnEarlierProxyAlsoWhenOnlyTheApiServerShowsIt() {
        ProxyKey first = rig.create("p1", Rig.managed());
        Secret earlier = CredentialsSecret.build(rig.stored(first).orElseThrow(),
                ProxyCredentials.generate(new SecureRandom()));
        rig.store.createSecret(earlier);
        rig.delete(first);
        ProxyKey key = rig.create("p1", Rig.managed(), "uid-of-the-second");
        rig.store.lagSecretCache(true);

        Outcome.Failed failed = assertInstanceOf(Outcome.Failed.class, rig.reconcile(key), "retried with backoff");

        assertTrue(failed.message().contains("left by an earlier Proxy"), failed.message());
        assertTrue(rig.condition(key, Condition.PROVISIONED).hasReason(Reason.CredentialsError));
        assertTrue(rig.storedSecret(Rig.NAMESPACE, "p1-proxy-auth").isEmpty(), "the earlier one is deleted");
        assertEquals(0, rig.provider.calls(Op.CREATE));

        assertEquals(Outcome.after(INTERVALS.provisioningPoll()), rig.reconcile(key));
        Secret now = rig.storedSecret(Rig.NAMESPACE, "p1-proxy-auth").orElseThrow();
        assertEquals(true, CredentialsSecret.ownedBy(now, "uid-of-the-second"));
        assertEquals(1, rig.provider.instances().size());
    }
}
