package com.example.crawl.egress.proxy;

import static com.example.crawl.egress.fakeapi.FakeApi.PROXY;
import static com.example.crawl.egress.fakeapi.FakeApi.SECRET;

import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.Conditions;
import com.example.crawl.egress.api.CredentialsSecret;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.ProxyStatus;
import com.example.crawl.egress.api.Reason;
import com.example.crawl.egress.api.SpecHash;
import com.example.crawl.egress.api.SpecRules;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.fakeapi.FakeApi;
import com.example.crawl.egress.proxy.Backend.Placed;
import com.example.crawl.egress.runtime.Outcome;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Secret;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What must hold once the faults stopped, the system ran to quiescence and one GC sweep ran:
 * nothing leaked, nothing duplicated, nothing stuck. Each check returns its violations as
 * sentences naming the Proxy or the instance; none means the run passed.
 */
final class Invariants {

    private final FakeApi api;
    private final Backend backend;
    private final List<Placed> instances;
    private final Map<ProxyKey, Outcome> lastOutcome;
    private final List<String> violations = new ArrayList<>();

    private Invariants(FakeApi api, Backend backend, Map<ProxyKey, Outcome> lastOutcome) {
        this.api = api;
        this.backend = backend;
        this.instances = backend.all();
        this.lastOutcome = lastOutcome;
    }

    static List<String> check(FakeApi api, Backend backend, Map<ProxyKey, Outcome> lastOutcome) {
        Invariants run = new Invariants(api, backend, lastOutcome);
        Set<String> live = api.list(PROXY).stream().map(p -> p.getMetadata().getUid()).collect(Collectors.toSet());
        api.list(PROXY).stream().map(ProxyKey::of).forEach(run::proxy);
        run.noOrphans(live);
        return List.copyOf(run.violations);
    }

    private void proxy(ProxyKey key) {
        Proxy proxy = api.get(PROXY, key).orElseThrow();
        String uid = proxy.getMetadata().getUid();
        List<Placed> own = instances.stream().filter(p -> uid.equals(p.instance().ownerUid())).toList();
        if (proxy.getMetadata().getDeletionTimestamp() != null) {
            violations.add(key + ": still being deleted (stuck), instances " + describe(own));
            return;
        }
        if (own.size() > 1) {
            violations.add(key + ": " + own.size() + " instances (duplicated): " + describe(own));
        }
        if (lastOutcome.get(key) instanceof Outcome.Failed f) {
            violations.add(key + ": last reconcile failed (stuck): " + f.message());
        } else if (lastOutcome.get(key) instanceof Outcome.Conflict c) {
            violations.add(key + ": last reconcile lost a conflict (stuck): " + c.message());
        }
        ProxySpec spec = proxy.getSpec();
        if (spec.mode() == ProxySpec.Mode.Managed && SpecRules.violations(spec).isEmpty()
                && Backend.NAMES.contains(spec.provider())) {
            converged(key, proxy, own);
        }
    }

    /** A live, valid Managed Proxy of a configured provider: one instance, where the spec says, and status naming it. */
    private void converged(ProxyKey key, Proxy proxy, List<Placed> own) {
        String provider = proxy.getSpec().provider();
        ProxyStatus status = Objects.requireNonNullElse(proxy.getStatus(), ProxyStatus.EMPTY);
        Optional<Condition> provisioned = Conditions.find(status.conditions(), Condition.PROVISIONED);
        if (own.size() != 1 || !own.getFirst().provider().equals(provider)) {
            violations.add(key + ": wants one instance in " + provider + ", has " + describe(own)
                    + "; Provisioned " + provisioned.map(Condition::message).orElse("unset"));
            return;
        }
        Placed placed = own.getFirst();
        if (!FaultyProvider.providerID(placed.provider(), placed.instance().providerID()).equals(status.providerID())) {
            violations.add(key + ": status.providerID " + status.providerID() + " is not its instance " + describe(own));
        }
        if (provisioned.filter(c -> c.isTrue() && c.hasReason(Reason.Created)).isEmpty()
                || !Objects.equals(placed.instance().ip(), status.ip())) {
            violations.add(key + ": not Provisioned on its running instance: ip " + status.ip() + ", condition "
                    + provisioned.map(c -> c.reason() + " " + c.message()).orElse("unset"));
        }
        String image = proxy.getSpec().kubernetes().image();
        if (!backend.image(placed).filter(image::equals).isPresent()) {
            violations.add(key + ": instance made from image " + backend.image(placed).orElse("unknown") + ", spec says "
                    + image);
        }
        Map<String, String> annotations = Objects.requireNonNullElse(proxy.getMetadata().getAnnotations(), Map.of());
        if (!provider.equals(annotations.get(Proxy.INSTANCE_PROVIDER_ANNOTATION))) {
            violations.add(key + ": instance-provider annotation " + annotations.get(Proxy.INSTANCE_PROVIDER_ANNOTATION)
                    + " is not " + provider);
        }
        Optional<Secret> credentials = api.get(SECRET, key.namespace(), CredentialsSecret.name(key.name()))
                .filter(s -> CredentialsSecret.ownedBy(s, proxy.getMetadata().getUid()));
        if (credentials.isEmpty()) {
            violations.add(key + ": has no credentials Secret of its own");
        } else if (!SpecHash.of(proxy.getSpec(), null, credentials.get().getMetadata().getUid())
                .equals(annotations.get(Proxy.SPEC_HASH_ANNOTATION))) {
            violations.add(key + ": spec-hash annotation does not match its spec and credentials");
        }
    }

    private void noOrphans(Set<String> live) {
        instances.stream().filter(p -> !live.contains(p.instance().ownerUid()))
                .forEach(p -> violations.add("instance " + describe(List.of(p)) + " of gone Proxy "
                        + p.instance().ownerUid() + " survived the GC sweep"));
        for (Secret secret : api.list(SECRET)) {
            String owner = ownerUid(secret);
            if (owner != null && !live.contains(owner)) {
                violations.add("Secret " + secret.getMetadata().getName() + " of gone Proxy " + owner
                        + " survived the GC sweep");
            }
        }
    }

    static String ownerUid(Secret secret) {
        List<OwnerReference> refs = secret.getMetadata().getOwnerReferences();
        return refs == null || refs.isEmpty() ? null : refs.getFirst().getUid();
    }

    private static String describe(List<Placed> placed) {
        return placed.stream().map(p -> p.provider() + ":" + p.instance().providerID() + "(" + p.instance().state() + ")")
                .toList().toString();
    }
}
