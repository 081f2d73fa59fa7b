package com.example.crawl.egress.pool;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyPool;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.random.RandomGenerator;

/**
 * The member Proxy objects themselves: a new one made from a placement's template, with its name
 * and its owner reference; the owner a cached one names; and a copy to change and write.
 */
final class MemberObjects {

    private static final String ALPHABET = "abcdefghijklmnopqrstuvwxyz234567";

    private MemberObjects() {
    }

    /** A new member: {@code <pool>-<suffix>}, the template's labels, annotations and spec, owned by the pool. */
    static Proxy newMember(ProxyPool pool, MemberTemplate template, RandomGenerator random) {
        Proxy p = new Proxy();
        p.setMetadata(new ObjectMetaBuilder().withNamespace(pool.getMetadata().getNamespace())
                .withName(pool.getMetadata().getName() + "-" + suffix(pool.getMetadata().getUid(), random))
                .withLabels(template.labels()).withAnnotations(template.annotations().isEmpty() ? null
                        : template.annotations())
                .withOwnerReferences(owner(pool)).build());
        p.setSpec(template.spec());
        return p;
    }

    static OwnerReference owner(ProxyPool pool) {
        return new OwnerReferenceBuilder().withApiVersion(Proxy.GROUP + "/" + Proxy.VERSION).withKind(ProxyPool.KIND)
                .withName(pool.getMetadata().getName()).withUid(pool.getMetadata().getUid()).withController(true)
                .build();
    }

    /** The UID of the ProxyPool a Proxy's controller owner reference names, or null. */
    static String ownerUid(Proxy proxy) {
        return ProxyPool.owning(proxy).map(OwnerReference::getUid).orElse(null);
    }

    /** Eight characters of a hash of the pool's UID and a random nonce, in a DNS-safe alphabet. */
    private static String suffix(String uid, RandomGenerator random) {
        byte[] nonce = new byte[16];
        random.nextBytes(nonce);
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(uid.getBytes(StandardCharsets.UTF_8));
            byte[] digest = sha.digest(HexFormat.of().formatHex(nonce).getBytes(StandardCharsets.UTF_8));
            StringBuilder out = new StringBuilder(8);
            for (int i = 0; i < 8; i++) {
                out.append(ALPHABET.charAt(digest[i] & 31));
            }
            return out.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** A copy of a cached Proxy whose metadata may be changed. */
    static Proxy copy(Proxy proxy) {
        Proxy copy = new Proxy();
        copy.setMetadata(new ObjectMetaBuilder(proxy.getMetadata()).build());
        copy.setSpec(proxy.getSpec());
        copy.setStatus(proxy.getStatus());
        return copy;
    }
}
