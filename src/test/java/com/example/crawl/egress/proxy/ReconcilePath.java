package com.example.crawl.egress.proxy;

import static com.example.crawl.egress.fakeapi.FakeApi.SECRET;

import com.example.crawl.egress.api.CredentialsSecret;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.ProxyStatus;
import com.example.crawl.egress.api.SpecHash;
import com.example.crawl.egress.api.SpecRules;
import com.example.crawl.egress.fakeapi.FakeApi;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Which of the reconciler's paths a reconcile is on, judged from the object it starts from, so
 * that the crash suite can say which crash points it hit on which path: {@code create} (no
 * instance recorded), {@code adopt} (an instance recorded without a spec hash), {@code replace}
 * (the hash or the maker differs from the spec), {@code observe} (nothing to change),
 * {@code delete}, or {@code other} (External, invalid, unknown provider).
 */
final class ReconcilePath {

    private ReconcilePath() {
    }

    static String of(Optional<Proxy> cached, FakeApi api, Set<String> providers) {
        if (cached.isEmpty()) {
            return "gone";
        }
        Proxy proxy = cached.get();
        ProxySpec spec = proxy.getSpec();
        if (proxy.getMetadata().getDeletionTimestamp() != null) {
            return "delete";
        }
        if (spec == null || !SpecRules.violations(spec).isEmpty() || spec.mode() != ProxySpec.Mode.Managed
                || !providers.contains(spec.provider())) {
            return "other";
        }
        ProxyStatus status = Objects.requireNonNullElse(proxy.getStatus(), ProxyStatus.EMPTY);
        Map<String, String> annotations = Objects.requireNonNullElse(proxy.getMetadata().getAnnotations(), Map.<String, String>of());
        if (status.providerID() == null) {
            return "create";
        }
        String hash = annotations.get(Proxy.SPEC_HASH_ANNOTATION);
        if (hash == null) {
            return "adopt";
        }
        String credentials = api.get(SECRET, proxy.getMetadata().getNamespace(),
                CredentialsSecret.name(proxy.getMetadata().getName())).map(s -> s.getMetadata().getUid()).orElse(null);
        boolean sameMaker = spec.provider().equals(annotations.getOrDefault(Proxy.INSTANCE_PROVIDER_ANNOTATION,
                spec.provider()));
        return sameMaker && hash.equals(SpecHash.of(spec, null, credentials)) ? "observe" : "replace";
    }
}
