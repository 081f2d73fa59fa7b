package com.example.crawl.egress.targetpolicy;

import com.example.crawl.egress.api.Durations;
import com.example.crawl.egress.api.TargetCooldowns;
import com.example.crawl.egress.api.TargetPolicy;
import com.example.crawl.egress.api.TargetPolicy.AcceptedReason;
import com.example.crawl.egress.api.TargetPolicyRules;
import com.example.crawl.egress.api.TargetPolicySpec;
import com.example.crawl.egress.cache.PolicyKey;
import com.example.crawl.egress.lease.CooldownRules;
import com.example.crawl.egress.lease.SitePolicies;
import com.example.crawl.egress.lease.SitePolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The TargetPolicy objects of a moment, as the lease store asks for them: per namespace, each host
 * and each {@code *.suffix} to its policy. Immutable; built anew at every change.
 *
 * <p>Which policy a host gets: the one naming it exactly, else the one with the longest matching
 * {@code *.suffix} ({@code *.example.com} matches {@code a.example.com} and {@code a.b.example.com},
 * not {@code example.com}), else the flags' defaults. Two policies of one namespace cannot claim
 * the same host or suffix: the older one (by creation time, then name) keeps it, and the younger
 * one is {@link AcceptedReason#Conflicted} and applies to none of its hosts, so that a policy is
 * always in force whole or not at all. A policy that breaks a rule ({@link TargetPolicyRules}) is
 * {@link AcceptedReason#Invalid} and applies to nothing either. A field a policy leaves out takes
 * the flags' value.
 */
final class PolicyIndex implements SitePolicies {

    /** Why a policy is, or is not, in force, for its {@code Accepted} condition. */
    record Verdict(AcceptedReason reason, String message) {
        Verdict {
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(message, "message");
        }

        boolean applied() {
            return reason == AcceptedReason.Applied;
        }
    }

    /** One namespace's policies by exact host and by the suffix after {@code *.}. */
    private record Hosts(Map<String, SitePolicy> exact, Map<String, SitePolicy> suffixes) { }

    private static final Comparator<TargetPolicy> AGE = Comparator
            .comparing((TargetPolicy p) -> created(p))
            .thenComparing(p -> p.getMetadata().getName());

    private final SitePolicy defaults;
    private final Map<String, Hosts> byNamespace;
    private final Map<PolicyKey, Verdict> verdicts;

    private PolicyIndex(SitePolicy defaults, Map<String, Hosts> byNamespace, Map<PolicyKey, Verdict> verdicts) {
        this.defaults = defaults;
        this.byNamespace = byNamespace;
        this.verdicts = verdicts;
    }

    /** No policies: every site gets {@code defaults}. */
    static PolicyIndex empty(SitePolicy defaults) {
        return new PolicyIndex(defaults, Map.of(), Map.of());
    }

    /**
     * The index of {@code policies}, fields they leave out taken from {@code defaults}.
     *
     * @param defaults the policy of a site none names, built from the flags
     */
    static PolicyIndex of(Collection<TargetPolicy> policies, SitePolicy defaults) {
        List<TargetPolicy> oldestFirst = new ArrayList<>(policies);
        oldestFirst.sort(AGE);
        Map<String, Hosts> byNamespace = new HashMap<>();
        Map<PolicyKey, Verdict> verdicts = new HashMap<>();
        Map<String, String> claimedBy = new HashMap<>(); // "namespace host" -> the name of the policy holding it
        for (TargetPolicy p : oldestFirst) {
            String namespace = p.getMetadata().getNamespace();
            String name = p.getMetadata().getName();
            PolicyKey key = new PolicyKey(namespace, name);
            TargetPolicySpec spec = p.getSpec();
            List<String> problems = spec == null ? List.of("spec: required") : TargetPolicyRules.violations(spec);
            SitePolicy policy = null;
            if (problems.isEmpty()) {
                try {
                    policy = resolve(key.toString(), spec, defaults);
                } catch (IllegalArgumentException e) {
                    problems = List.of(e.getMessage());
                }
            }
            if (policy == null) {
                verdicts.put(key, new Verdict(AcceptedReason.Invalid, String.join("; ", problems)));
                continue;
            }
            List<String> taken = new ArrayList<>();
            for (String host : spec.hosts()) {
                String holder = claimedBy.get(namespace + " " + host);
                if (holder != null) {
                    taken.add(host + " (" + holder + ")");
                }
            }
            if (!taken.isEmpty()) {
                verdicts.put(key, new Verdict(AcceptedReason.Conflicted, "not applied: older policies of this "
                        + "namespace claim " + String.join(", ", taken)));
                continue;
            }
            Hosts hosts = byNamespace.computeIfAbsent(namespace, n -> new Hosts(new HashMap<>(), new HashMap<>()));
            for (String host : spec.hosts()) {
                claimedBy.put(namespace + " " + host, name);
                if (host.startsWith("*.")) {
                    hosts.suffixes().put(host.substring(2), policy);
                } else {
                    hosts.exact().put(host, policy);
                }
            }
            verdicts.put(key, new Verdict(AcceptedReason.Applied, "in force for " + spec.hosts().size()
                    + (spec.hosts().size() == 1 ? " host" : " hosts")));
        }
        return new PolicyIndex(defaults, Map.copyOf(byNamespace), Map.copyOf(verdicts));
    }

    /** The site policy {@code spec} makes, its absent fields the flags'. */
    private static SitePolicy resolve(String name, TargetPolicySpec spec, SitePolicy defaults) {
        CooldownRules flags = defaults.cooldowns();
        TargetCooldowns c = spec.cooldown();
        CooldownRules rules = flags;
        if (c != null) {
            Duration banned = duration("spec.cooldown.banned", c.banned(), flags.banned());
            Duration rateLimited = duration("spec.cooldown.rateLimited", c.rateLimited(), flags.rateLimited());
            Duration max = duration("spec.cooldown.max", c.max(), flags.max());
            if (banned.compareTo(max) > 0 || rateLimited.compareTo(max) > 0) {
                throw new IllegalArgumentException("spec.cooldown: rateLimited and banned must not exceed max"
                        + (c.max() == null ? ", which is --max-cooldown (" + written(max) + ") when not set" : ""));
            }
            rules = new CooldownRules(banned, rateLimited, max);
        }
        return new SitePolicy(name, spec.maxLeases() == null ? defaults.maxLeases() : spec.maxLeases(),
                spec.maxLeasesPerProxy() == null ? defaults.maxLeasesPerProxy() : spec.maxLeasesPerProxy(),
                duration("spec.minInterval", spec.minInterval(), defaults.minInterval()), rules);
    }

    private static String written(Duration d) {
        return d.toMinutes() % 60 == 0 ? d.toHours() + "h" : d.toMinutes() + "m";
    }

    private static Duration duration(String field, String text, Duration absent) {
        return text == null ? absent : Durations.parse(field, text);
    }

    @Override
    public SitePolicy find(String namespace, String target) {
        Hosts hosts = byNamespace.get(namespace);
        if (hosts == null) {
            return defaults;
        }
        String host = lowerCase(target);
        SitePolicy exact = hosts.exact().get(host);
        if (exact != null) {
            return exact;
        }
        if (!hosts.suffixes().isEmpty()) {
            for (int dot = host.indexOf('.'); dot >= 0; dot = host.indexOf('.', dot + 1)) {
                SitePolicy policy = hosts.suffixes().get(host.substring(dot + 1)); // longest suffix first
                if (policy != null) {
                    return policy;
                }
            }
        }
        return defaults;
    }

    /** The verdict on the policy of {@code key}, if it was in the index's input. */
    Verdict verdict(PolicyKey key) {
        return verdicts.get(key);
    }

    /** A target as written, unless it has upper case: most do not, and then no copy is made. */
    private static String lowerCase(String target) {
        for (int i = 0; i < target.length(); i++) {
            if (Character.isUpperCase(target.charAt(i))) {
                return target.toLowerCase(Locale.ROOT);
            }
        }
        return target;
    }

    private static Instant created(TargetPolicy p) {
        String at = p.getMetadata().getCreationTimestamp();
        return at == null ? Instant.MAX : Instant.parse(at);
    }
}
