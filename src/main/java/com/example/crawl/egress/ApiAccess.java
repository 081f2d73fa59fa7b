package com.example.crawl.egress;

import com.example.crawl.egress.api.Proxy;
import java.util.List;
import java.util.Set;

/**
 * Every Kubernetes API call the deployed operator makes, as RBAC sees it: API group, resource
 * (with its subresource), verbs, and whether the call may reach any namespace or only the
 * operator's own. Local mode ({@code --local}) is not deployed and is not listed.
 *
 * <p>This list is the source the deploy manifests are held to: {@code deploy/base}'s ClusterRole
 * grants exactly the {@link Scope#CLUSTER} entries and its Role exactly the
 * {@link Scope#OPERATOR_NAMESPACE} ones ({@code DeployManifestsIT}), and the running jar calls
 * exactly these, no more and no fewer ({@code ApiAccessIT}). A new API call therefore needs an
 * entry here, and the manifests follow.
 *
 * <p>Who calls what:
 * <ul>
 * <li>proxies: informer (list, watch), finalizer and annotations (update), orphan sweep (list);
 *     the pool controller creates and deletes members, retires them and updates them in place
 *     (update), and reads one back after a create failed on the wire (get);
 *     proxies/status: the reconciler's status writes (update).
 * <li>proxypools: the pool informer (list, watch), and a read confirming a pool is gone before its
 *     members are deleted (get); proxypools/status: the pool controller's status writes (update).
 * <li>targetpolicies: the policy informer (list, watch); targetpolicies/status: the policy status
 *     controller's writes of each policy's Accepted condition (update).
 * <li>providerhealths (cluster-scoped) and their status: the provider-health monitor reads its
 *     object (get), creates it, writes its status, lists its own to delete those of providers no
 *     longer configured.
 * <li>secrets: informers over labelled cloud-init, credentials and discovery-client Secrets (list,
 *     watch; the clients' in one namespace); credentials
 *     Secrets created and read back after a 409 (create, get) and deleted with their Proxy; the
 *     kubernetes provider's password-file Secrets (create, get and update to take one over after a
 *     409, delete); the orphan sweep (list, delete); the lease service's state and key Secrets in
 *     the leader-election namespace: every replica watches them (list, watch), the leader reads
 *     them (get), creates them and writes the state (create, update).
 * <li>pods: the kubernetes provider (create, get, delete; list across namespaces for the orphan
 *     sweep and the provider check).
 * <li>events.k8s.io events: the Event recorder creates an Event and patches its series; it never
 *     reads one.
 * <li>leases: leader election in the operator's namespace: fabric8's elector reads, creates and
 *     renews (patch) the Lease, and releases it (patch); {@code LeaderElection} cuts it once more
 *     (update) when a renewal raced the release.
 * </ul>
 */
final class ApiAccess {

    /** Where a rule applies: any namespace (or a cluster-scoped resource), or the operator's own namespace. */
    enum Scope { CLUSTER, OPERATOR_NAMESPACE }

    /**
     * One RBAC rule.
     *
     * @param group    API group, "" for the core group
     * @param resource plural resource name, {@code resource/subresource} for a subresource
     * @param verbs    RBAC verbs (get, list, watch, create, update, patch, delete)
     * @param scope    where it applies
     */
    record Rule(String group, String resource, Set<String> verbs, Scope scope) {
        Rule {
            verbs = Set.copyOf(verbs);
        }
    }

    static final String CORE = "";
    static final String EVENTS_GROUP = "events.k8s.io";
    static final String COORDINATION_GROUP = "coordination.k8s.io";

    static final List<Rule> RULES = List.of(
            new Rule(Proxy.GROUP, "proxies", Set.of("get", "list", "watch", "create", "update", "delete"),
                    Scope.CLUSTER),
            new Rule(Proxy.GROUP, "proxies/status", Set.of("update"), Scope.CLUSTER),
            new Rule(Proxy.GROUP, "proxypools", Set.of("get", "list", "watch"), Scope.CLUSTER),
            new Rule(Proxy.GROUP, "proxypools/status", Set.of("update"), Scope.CLUSTER),
            new Rule(Proxy.GROUP, "targetpolicies", Set.of("list", "watch"), Scope.CLUSTER),
            new Rule(Proxy.GROUP, "targetpolicies/status", Set.of("update"), Scope.CLUSTER),
            new Rule(Proxy.GROUP, "providerhealths", Set.of("get", "list", "create", "delete"), Scope.CLUSTER),
            new Rule(Proxy.GROUP, "providerhealths/status", Set.of("update"), Scope.CLUSTER),
            new Rule(CORE, "secrets", Set.of("get", "list", "watch", "create", "update", "delete"), Scope.CLUSTER),
            new Rule(CORE, "pods", Set.of("get", "list", "create", "delete"), Scope.CLUSTER),
            new Rule(EVENTS_GROUP, "events", Set.of("create", "patch"), Scope.CLUSTER),
            new Rule(COORDINATION_GROUP, "leases", Set.of("get", "create", "patch", "update"),
                    Scope.OPERATOR_NAMESPACE));

    private ApiAccess() {
    }
}
