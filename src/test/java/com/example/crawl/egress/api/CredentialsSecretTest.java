package com.example.crawl.egress.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class CredentialsSecretTest {

    private static final ProxyCredentials CREDENTIALS = new ProxyCredentials("crawler-abc", "pw-0123456789");

    private static Proxy managed(String name, String uid) {
        Proxy p = new Proxy();
        p.setMetadata(new ObjectMetaBuilder().withNamespace("crawl").withName(name).withUid(uid).build());
        p.setSpec(new ProxySpec(null, "gcp-eu", null, null, null, null, null, null, null, null, null));
        return p;
    }

    private static Proxy external(Endpoint.CredentialsSecretRef ref) {
        Proxy p = new Proxy();
        p.setMetadata(new ObjectMetaBuilder().withNamespace("crawl").withName("ext").withUid("uid-e").build());
        p.setSpec(new ProxySpec(ProxySpec.Mode.External, null, null, null, null, null, null, null, null,
                new Endpoint("proxy.example.net", 8080, ref), null));
        return p;
    }

    private static Secret withData(String namespace, String name, Map<String, String> plain) {
        Map<String, String> data = new HashMap<>();
        plain.forEach((k, v) -> data.put(k, Base64.getEncoder().encodeToString(v.getBytes(StandardCharsets.UTF_8))));
        return new SecretBuilder().withNewMetadata().withNamespace(namespace).withName(name).endMetadata()
                .withData(data).build();
    }

    @Test
    void shouldNameTheSecretAfterTheProxy() {
        assertEquals("eu-1-proxy-auth", CredentialsSecret.name("eu-1"));
    }

    @Test
    void shouldKeepAValidDistinctNameForTheLongestProxyNames() {
        String longest = "a".repeat(250) + ".b.c";
        String other = "a".repeat(250) + ".b.d";

        String name = CredentialsSecret.name(longest);

        assertTrue(name.length() <= 253, name.length() + "");
        assertTrue(name.matches("[a-z0-9]([-a-z0-9.]*[a-z0-9])?"), name);
        assertTrue(name.endsWith("-proxy-auth"), name);
        assertNotEquals(name, CredentialsSecret.name(other));
        assertEquals(253, CredentialsSecret.name("x".repeat(242)).length(), "242 characters still fit as they are");
    }

    @Test
    void shouldBuildABasicAuthSecretOwnedByTheProxyAndVisibleToTheOperatorsCache() {
        Secret s = CredentialsSecret.build(managed("eu-1", "uid-1"), CREDENTIALS);

        assertEquals("crawl", s.getMetadata().getNamespace());
        assertEquals("eu-1-proxy-auth", s.getMetadata().getName());
        assertEquals("kubernetes.io/basic-auth", s.getType());
        assertEquals(Map.of(Proxy.CREDENTIALS_SECRET_LABEL, "true"), s.getMetadata().getLabels());
        assertTrue(CredentialsSecret.ownedBy(s, "uid-1"));
        assertFalse(CredentialsSecret.ownedBy(s, "uid-2"));
        assertEquals("crawl.example.com/v1alpha1", s.getMetadata().getOwnerReferences().get(0).getApiVersion());
    }

    @Test
    void shouldReadBackWhatItBuilt() throws Exception {
        assertEquals(CREDENTIALS, CredentialsSecret.read(CredentialsSecret.build(managed("eu-1", "uid-1"), CREDENTIALS)));
    }

    @Test
    void shouldNameSecretAndKeyButNoValueWhenTheSecretIsUnusable() {
        Secret missing = withData("crawl", "s", Map.of("username", "u"));
        Secret colon = withData("crawl", "s", Map.of("username", "u:x", "password", "hunter2"));
        Secret notBase64 = new SecretBuilder(missing).withData(Map.of("username", "@@", "password", "@@")).build();

        CredentialsSecret.Invalid e = assertThrows(CredentialsSecret.Invalid.class, () -> CredentialsSecret.read(missing));
        assertEquals("Secret crawl/s has no key \"password\"", e.getMessage());
        e = assertThrows(CredentialsSecret.Invalid.class, () -> CredentialsSecret.read(colon));
        assertFalse(e.getMessage().contains("hunter2"), e.getMessage());
        e = assertThrows(CredentialsSecret.Invalid.class, () -> CredentialsSecret.read(notBase64));
        assertTrue(e.getMessage().contains("not base64"), e.getMessage());
    }

    @Test
    void shouldFindAManagedProxysCredentialsOnlyInASecretItOwns() {
        Proxy proxy = managed("eu-1", "uid-1");
        Secret own = CredentialsSecret.build(proxy, CREDENTIALS);
        Secret ofAnEarlierProxyOfTheSameName = CredentialsSecret.build(managed("eu-1", "uid-0"), CREDENTIALS);
        Secret foreign = withData("crawl", "eu-1-proxy-auth", Map.of("username", "u", "password", "p"));

        assertEquals(Optional.of(CREDENTIALS), CredentialsSecret.find(proxy, (ns, n) -> Optional.of(own)));
        assertEquals(Optional.empty(), CredentialsSecret.find(proxy, (ns, n) -> Optional.of(ofAnEarlierProxyOfTheSameName)));
        assertEquals(Optional.empty(), CredentialsSecret.find(proxy, (ns, n) -> Optional.of(foreign)));
        assertEquals(Optional.empty(), CredentialsSecret.find(proxy, (ns, n) -> Optional.empty()));
    }

    @Test
    void shouldLendLeaseCredentialsOnlyForAManagedProxyWhoseOwnSecretWasMadeForThem() {
        Proxy proxy = managed("eu-1", "uid-1");
        Secret own = CredentialsSecret.build(proxy, CREDENTIALS);
        Secret older = new SecretBuilder(own).editMetadata().withAnnotations(Map.of()).endMetadata().build();
        Secret ofAnEarlierProxy = CredentialsSecret.build(managed("eu-1", "uid-0"), CREDENTIALS);

        assertEquals("v1", own.getMetadata().getAnnotations().get(CredentialsSecret.LEASE_CREDENTIALS_ANNOTATION));
        assertTrue(CredentialsSecret.leaseScoped(proxy, (ns, n) -> ns.equals("crawl") && n.equals("eu-1-proxy-auth")
                ? Optional.of(own) : Optional.empty()));
        assertFalse(CredentialsSecret.leaseScoped(proxy, (ns, n) -> Optional.of(older)),
                "made by a build before lease credentials: its instance knows only the proxy's own");
        assertFalse(CredentialsSecret.leaseScoped(proxy, (ns, n) -> Optional.of(ofAnEarlierProxy)));
        assertFalse(CredentialsSecret.leaseScoped(proxy, (ns, n) -> Optional.empty()));
        assertFalse(CredentialsSecret.leaseScoped(external(new Endpoint.CredentialsSecretRef("eu-1-proxy-auth", null,
                null)), (ns, n) -> Optional.of(own)), "an External proxy's Squid is not the operator's");
    }

    @Test
    void shouldFindAnExternalProxysCredentialsInTheKeysItNames() {
        Secret theirs = withData("crawl", "vendor", Map.of("user", "acct-7", "token", "t0k3n"));
        Proxy named = external(new Endpoint.CredentialsSecretRef("vendor", "user", "token"));
        Proxy defaults = external(new Endpoint.CredentialsSecretRef("vendor", null, null));

        assertEquals(Optional.of(new ProxyCredentials("acct-7", "t0k3n")),
                CredentialsSecret.find(named, (ns, n) -> ns.equals("crawl") && n.equals("vendor")
                        ? Optional.of(theirs) : Optional.empty()));
        assertEquals(Optional.empty(), CredentialsSecret.find(defaults, (ns, n) -> Optional.of(theirs)),
                "no username/password keys");
        assertEquals(Optional.empty(), CredentialsSecret.find(external(null), (ns, n) -> Optional.of(theirs)));
    }

    @Test
    void shouldRequireCredentialsForEveryManagedProxyAndExternalOnesThatNameThem() {
        assertTrue(CredentialsSecret.required(managed("eu-1", "uid-1").getSpec()));
        assertTrue(CredentialsSecret.required(external(new Endpoint.CredentialsSecretRef("s", null, null)).getSpec()));
        assertFalse(CredentialsSecret.required(external(null).getSpec()));
    }
}
