package com.example.crawl.egress.provider.kubernetes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.InstanceName;
import com.example.crawl.egress.api.ProxyCredentials;
import com.example.crawl.egress.config.ProviderConfig;
import com.example.crawl.egress.api.LeaseCredentials;
import com.example.crawl.egress.provider.SquidAuth;
import com.example.crawl.egress.provider.CreateRequest;
import com.example.crawl.egress.provider.EgressPolicy;
import com.example.crawl.egress.provider.Instance;
import com.example.crawl.egress.provider.ProviderException;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.Base64;
import java.util.Map;
import org.apache.commons.codec.digest.Crypt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The pod's password-file Secret against fabric8's mock API server: made with the pod, in the pod's
 * namespace, holding only the hash, owned by the pod, gone with it; a Secret an earlier pod of the
 * same Proxy left is taken over, anyone else's is never touched.
 */
class PodSecretIT {

    private static final ProxyCredentials CRAWLER = ProxyCredentials.generate(new SecureRandom());
    private static final ProviderConfig.Kubernetes CENTRAL = new ProviderConfig.Kubernetes("proxies", "");

    private PodApi api;
    private PodProvider provider;

    @BeforeEach
    void start() {
        api = PodApi.start();
        provider = new PodProvider(api.client(), CENTRAL, EgressPolicy.DEFAULT, PodProvider.REQUEST_TIMEOUT,
                Clock.systemUTC());
    }

    @AfterEach
    void stop() {
        api.close();
    }

    private static CreateRequest request(String uid) {
        return new CreateRequest(InstanceName.fromUid(uid), uid, "crawlers", "eu-1", 3128, null, CRAWLER, null, null, null);
    }

    @Test
    void shouldGiveThePodASecretOfItsOwnNamespaceWithOnlyTheHashOwnedByThePod() throws Exception {
        CreateRequest req = request("uid-1");

        provider.create(req);

        Pod pod = api.client().pods().inNamespace("proxies").withName(req.name()).get();
        Secret secret = secret(req);
        assertEquals(pod.getMetadata().getUid(), secret.getMetadata().getOwnerReferences().get(0).getUid());
        assertEquals(PodTemplate.labels(req), secret.getMetadata().getLabels());
        String line = passwd(secret);
        String hash = line.substring((CRAWLER.username() + ":").length()).strip();
        assertTrue(line.startsWith(CRAWLER.username() + ":$6$"), line);
        assertEquals(hash, Crypt.crypt(CRAWLER.password().getBytes(StandardCharsets.UTF_8), hash));
        assertFalse(line.contains(CRAWLER.password()));
        assertEquals(LeaseCredentials.keyFile(CRAWLER), file(secret, SquidAuth.KEY_FILE), "the lease key beside it");
        assertEquals(SquidAuth.helper(), file(secret, SquidAuth.HELPER_FILE), "and the helper that reads both");
        assertNull(api.client().secrets().inNamespace("crawlers").withName(req.name()).get(),
                "nothing in the Proxy's namespace: the pod could not mount it");
    }

    @Test
    void shouldDeleteTheSecretWithThePod() throws Exception {
        Instance made = provider.create(request("uid-1"));

        provider.delete(made.providerID());

        assertNull(api.client().secrets().inNamespace("proxies").withName(made.name()).get());
    }

    @Test
    void shouldTakeOverTheSecretAnEarlierPodOfTheSameProxyLeft() throws Exception {
        CreateRequest req = request("uid-1");
        api.client().secrets().inNamespace("proxies").resource(new SecretBuilder(
                PodTemplate.secret(req, "proxies", "uid-of-the-deleted-pod", Map.of("passwd", "crawler-old:$6$old$old\n"))).build()).create();

        provider.create(req);

        Secret secret = secret(req);
        Pod pod = api.client().pods().inNamespace("proxies").withName(req.name()).get();
        assertEquals(pod.getMetadata().getUid(), secret.getMetadata().getOwnerReferences().get(0).getUid());
        assertTrue(passwd(secret).startsWith(CRAWLER.username() + ":$6$"), "the new credentials' hash");
    }

    @Test
    void shouldNeverTouchASecretOfThatNameThatIsNotTheProxys() {
        CreateRequest req = request("uid-1");
        api.client().secrets().inNamespace("proxies").resource(new SecretBuilder().withNewMetadata()
                .withName(req.name()).endMetadata().withData(Map.of("passwd", "dGhlaXJz")).build()).create();

        ProviderException.Permanent e = assertThrows(ProviderException.Permanent.class, () -> provider.create(req));

        assertTrue(e.getMessage().contains("is not this Proxy's"), e.getMessage());
        assertEquals("dGhlaXJz", secret(req).getData().get("passwd"));
    }

    private Secret secret(CreateRequest req) {
        return api.client().secrets().inNamespace("proxies").withName(req.name()).get();
    }

    private static String passwd(Secret secret) {
        return file(secret, SquidAuth.PASSWORD_FILE);
    }

    private static String file(Secret secret, String name) {
        return new String(Base64.getDecoder().decode(secret.getData().get(name)), StandardCharsets.UTF_8);
    }
}
