package com.example.crawl.egress.provider.gcp;

import com.example.crawl.egress.config.ConfigException;
import com.example.crawl.egress.config.ProviderConfig;
import com.example.crawl.egress.provider.CheckCall;
import com.example.crawl.egress.provider.Checker;
import com.example.crawl.egress.provider.CreateRequest;
import com.example.crawl.egress.provider.EgressPolicy;
import com.example.crawl.egress.provider.Instance;
import com.example.crawl.egress.provider.InstanceState;
import com.example.crawl.egress.provider.ListsForDrift;
import com.example.crawl.egress.provider.SquidAuth;
import com.example.crawl.egress.provider.Provider;
import com.example.crawl.egress.provider.ProviderException;
import com.example.crawl.egress.provider.TargetStatus;
import com.google.api.gax.httpjson.HttpJsonCallContext;
import com.google.cloud.compute.v1.AggregatedListInstancesRequest;
import com.google.cloud.compute.v1.DeleteInstanceRequest;
import com.google.cloud.compute.v1.InsertInstanceRequest;
import com.google.cloud.compute.v1.InstanceAggregatedList;
import com.google.cloud.compute.v1.InstancesClient;
import com.google.cloud.compute.v1.InstancesScopedList;
import com.google.cloud.compute.v1.Operation;
import com.google.cloud.compute.v1.Warning;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * The {@code gcp} provider: one Compute Engine VM per Proxy in the provider's project, made and
 * removed with four calls and nothing else ({@code instances.insert}, {@code get}, {@code delete},
 * {@code aggregatedList}). providerIDs are {@code zones/<zone>/instances/<name>} ({@link InstanceId}).
 *
 * <ul>
 *   <li>{@code create} sends the insert ({@link InsertRequests}) and returns the instance as
 *       Provisioning without waiting for the operation: readiness is found by {@code get} polls,
 *       as for pods. A 409 (the name exists: a retry after a lost answer) adopts the instance
 *       when its owner label is the request's, and fails {@code Permanent} when it is not;</li>
 *   <li>{@code get} maps the instance through {@link ComputeInstance}; 404 is {@code NotFound};</li>
 *   <li>{@code delete} starts the deletion without waiting; 404 is already deleted;</li>
 *   <li>{@code listByTag} reads every page of an aggregated list over all zones, filtered on the
 *       managed label and this installation's cluster label, with partial success on so that an unreachable zone is named rather than
 *       failing the request blindly; any unreachable zone then fails the whole listing, since
 *       garbage collection must never take an instance it could not see for one that is gone;</li>
 *   <li>{@code check} (target: the project id) reads one page of that list with
 *       {@code maxResults=1} on a virtual thread and returns by the deadline; reasons as
 *       {@link ComputeCheck}, and {@value ComputeCheck#ZONES_UNREACHABLE} when a zone did not
 *       answer, since {@code listByTag} then fails too.</li>
 * </ul>
 *
 * <p>It {@link ListsForDrift}: Compute Engine rations read requests per project, so the
 * reconciler answers the drift checks of Running instances from one {@code listByTag} per drift
 * interval rather than a {@code get} each.
 *
 * <p>Errors are sorted by {@link ComputeFailure#classify}. Every request is bounded by a deadline
 * ({@value #REQUEST_TIMEOUT_SECONDS} s by default) and the client's retries are off: the
 * reconciler's work queue retries with backoff. The one retry left is the JDK's own: its HTTP
 * client repeats a {@code GET} or {@code DELETE} once when the connection closes before any answer
 * (never the insert's {@code POST}, whose body it streams), which both tolerate (a repeated delete
 * answers 404).
 *
 * <p>Thread-safe (the client is); calls block the caller. {@link #close} releases the client.
 */
public final class GcpProvider implements Provider, Checker, ListsForDrift, AutoCloseable {

    static final long REQUEST_TIMEOUT_SECONDS = 20;
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(REQUEST_TIMEOUT_SECONDS);
    static final int PAGE_SIZE = 500;
    private static final Set<String> INCOMPLETE = Set.of(Warning.Code.UNREACHABLE.name(),
            Warning.Code.PARTIAL_SUCCESS.name());
    private static final Set<String> OUT_OF_CAPACITY = Set.of("QUOTA_EXCEEDED", "ZONE_RESOURCE_POOL_EXHAUSTED",
            "ZONE_RESOURCE_POOL_EXHAUSTED_WITH_DETAILS", "RESOURCE_EXHAUSTED");

    private final InstancesClient client;
    private final String project;
    private final String cluster;
    /** The list filter: only instances carrying the managed label and this installation's. */
    private final String filter;
    private final EgressPolicy policy;
    private final SecureRandom random = new SecureRandom();

    /**
     * @param client  owned from now on: {@link #close} closes it
     * @param cluster this installation's {@code --cluster-name}, labelled on every VM and listed by
     * @param policy  where the VMs' Squids may forward to
     */
    GcpProvider(InstancesClient client, String project, String cluster, EgressPolicy policy) {
        this.client = Objects.requireNonNull(client, "client");
        this.project = Objects.requireNonNull(project, "project");
        this.cluster = Objects.requireNonNull(cluster, "cluster");
        this.filter = filter(cluster);
        this.policy = Objects.requireNonNull(policy, "policy");
    }

    /** The {@code aggregatedList} filter of installation {@code cluster}: both labels, ANDed. */
    static String filter(String cluster) {
        return "(labels." + InsertRequests.MANAGED_LABEL + " = \"true\") (labels." + InsertRequests.CLUSTER_LABEL
                + " = \"" + cluster + "\")";
    }

    /**
     * The provider for a {@code gcp} entry of the providers config; builds the client (see
     * {@link ComputeClients}) but calls nothing yet.
     *
     * @param cluster {@code --cluster-name}, already validated; empty when not given
     * @throws ConfigException when no cluster name is given (several operators may share a project,
     *                         and without one this operator could not tell its VMs from theirs),
     *                         or when the key file cannot be read or no credentials can be found
     */
    public static GcpProvider create(ProviderConfig config, String cluster, EgressPolicy policy)
            throws ConfigException {
        if (!(config.settings() instanceof ProviderConfig.Gcp settings)) {
            throw new IllegalArgumentException("not a gcp provider entry: " + config.name());
        }
        if (cluster.isEmpty()) {
            throw new ConfigException("providers config: provider " + config.name() + " (type gcp) needs --cluster-name: "
                    + "a name for this installation, unique among the operators using project " + settings.project()
                    + "; its VMs are labelled with it, and only VMs with it are listed and collected as orphans");
        }
        return new GcpProvider(ComputeClients.create(config.name(), settings, REQUEST_TIMEOUT), settings.project(),
                cluster, policy);
    }

    @Override
    public Instance create(CreateRequest req) throws ProviderException {
        InsertInstanceRequest insert = InsertRequests.build(project, cluster, req, policy,
                SquidAuth.files(req.credentials(), random));
        InstanceId id = new InstanceId(insert.getZone(), req.name());
        Operation operation;
        try {
            operation = client.insertCallable().call(insert);
        } catch (RuntimeException e) {
            if (ComputeFailure.isStatus(e, 409)) {
                return adopt(id, req.ownerUid());
            }
            ProviderException failure = ComputeFailure.classify("insert instance " + id, e);
            // A 404 on insert names something the spec refers to (zone, image, network) that does
            // not exist, perhaps not yet: retried like an unplaced error, not taken for the instance.
            throw failure instanceof ProviderException.NotFound
                    ? new ProviderException.Transient(failure.getMessage(), e) : failure;
        }
        refused(operation, id);
        return new Instance(id.providerID(), req.name(), req.ownerUid(), InstanceState.Provisioning, null, null);
    }

    @Override
    public Instance get(String providerID) throws ProviderException {
        InstanceId id = InstanceId.parse(providerID);
        try {
            return ComputeInstance.of(client.get(project, id.zone(), id.name()), id.zone());
        } catch (RuntimeException e) {
            throw ComputeFailure.classify("get instance " + id, e);
        }
    }

    @Override
    public void delete(String providerID) throws ProviderException {
        InstanceId id = InstanceId.parse(providerID);
        try {
            client.deleteCallable().call(DeleteInstanceRequest.newBuilder()
                    .setProject(project).setZone(id.zone()).setInstance(id.name()).build());
        } catch (RuntimeException e) {
            if (!ComputeFailure.isStatus(e, 404)) {
                throw ComputeFailure.classify("delete instance " + id, e);
            }
        }
    }

    @Override
    public List<Instance> listByTag() throws ProviderException {
        String what = "list managed instances in project " + project;
        AggregatedListInstancesRequest request = AggregatedListInstancesRequest.newBuilder().setProject(project)
                .setFilter(filter).setReturnPartialSuccess(true).setMaxResults(PAGE_SIZE).build();
        List<Instance> instances = new ArrayList<>();
        List<String> unreachable = new ArrayList<>();
        try {
            for (InstancesClient.AggregatedListPage page : client.aggregatedListPagedCallable().call(request)
                    .iteratePages()) {
                read(page.getResponse(), instances, unreachable);
            }
        } catch (RuntimeException e) {
            ProviderException failure = ComputeFailure.classify(what, e);
            // 404 on a list: the project does not exist. A configuration error, not a missing instance.
            throw failure instanceof ProviderException.NotFound
                    ? new ProviderException.Permanent(failure.getMessage(), e) : failure;
        }
        if (!unreachable.isEmpty()) {
            throw new ProviderException.Transient(what + ": incomplete, " + String.join("; ", unreachable)
                    + "; an incomplete list is never used, since what garbage collection does not see it cannot judge");
        }
        return List.copyOf(instances);
    }

    /**
     * One page of the managed-instance list with {@code maxResults=1}, a {@link CheckCall} waited
     * for no later than {@code deadline}; the request is bounded by the same time (and never by
     * more than {@link #REQUEST_TIMEOUT}), so an abandoned one ends too. Uses the shared client,
     * never closes it. Target: the project id. Never throws.
     */
    @Override
    public List<TargetStatus> check(Instant deadline) {
        Map<String, String> details = new TreeMap<>(Map.of("project", project));
        String what = "list managed instances in project " + project + " (one page)";
        AggregatedListInstancesRequest request = AggregatedListInstancesRequest.newBuilder().setProject(project)
                .setFilter(filter).setReturnPartialSuccess(true).setMaxResults(1).build();
        CheckCall.Work<InstanceAggregatedList> onePage = left -> client.aggregatedListCallable().call(request,
                HttpJsonCallContext.createDefault().withTimeoutDuration(left.compareTo(REQUEST_TIMEOUT) < 0 ? left : REQUEST_TIMEOUT));
        try {
            return List.of(CheckCall.start("gcp-check", deadline, Clock.systemUTC(), onePage)
                    .await(project, what, details, page -> verdict(page, details), cause -> failed(what, cause, details)));
        } catch (RuntimeException e) {
            // A check never throws: whatever escaped the mapping above is an API error with its message.
            return List.of(TargetStatus.notReady(project, ComputeCheck.API_ERROR, what + ": " + e, details));
        }
    }

    /** The check call failed with {@code cause}: its reason, and the permission a 403 names. */
    private TargetStatus failed(String what, Throwable cause, Map<String, String> details) {
        String reason = ComputeCheck.reason(cause);
        String permission = ComputeCheck.permission(cause);
        if (ComputeCheck.FORBIDDEN.equals(reason) && !permission.isEmpty()) {
            details.put("permission", permission);
        }
        return TargetStatus.notReady(project, reason, ComputeCheck.describe(what, cause), details);
    }

    /** Ready with the number of zones that answered, unless a zone did not: then listByTag fails too. */
    private TargetStatus verdict(InstanceAggregatedList page, Map<String, String> details) {
        List<String> unreachable = incomplete(page);
        long answered = page.getItemsMap().values().stream()
                .filter(scoped -> !scoped.hasWarning() || !INCOMPLETE.contains(scoped.getWarning().getCode())).count();
        details.put("zonesAnswered", Long.toString(answered));
        if (!unreachable.isEmpty()) {
            return TargetStatus.notReady(project, ComputeCheck.ZONES_UNREACHABLE, "list managed instances in project "
                    + project + ": incomplete, " + String.join("; ", unreachable)
                    + "; garbage collection lists nothing while a zone is unreachable", details);
        }
        return TargetStatus.ready(project, details);
    }

    /** One page's instances, and every sign that it is not complete. */
    private static void read(InstanceAggregatedList page, List<Instance> instances, List<String> unreachable) {
        unreachable.addAll(incomplete(page));
        for (Map.Entry<String, InstancesScopedList> scope : page.getItemsMap().entrySet()) {
            InstancesScopedList scoped = scope.getValue();
            String zone = ComputeInstance.zoneName(scope.getKey());
            scoped.getInstancesList().forEach(vm -> instances.add(ComputeInstance.of(vm, zone)));
        }
    }

    /** Every sign that a page is not complete: unreachable scopes, a page or scope warning saying so. */
    private static List<String> incomplete(InstanceAggregatedList page) {
        List<String> unreachable = new ArrayList<>();
        page.getUnreachablesList().forEach(scope -> unreachable.add(scope + " unreachable"));
        if (page.hasWarning() && INCOMPLETE.contains(page.getWarning().getCode())) {
            unreachable.add(page.getWarning().getCode() + ": " + page.getWarning().getMessage());
        }
        for (Map.Entry<String, InstancesScopedList> scope : page.getItemsMap().entrySet()) {
            InstancesScopedList scoped = scope.getValue();
            if (scoped.hasWarning() && INCOMPLETE.contains(scoped.getWarning().getCode())) {
                unreachable.add(scope.getKey() + " " + scoped.getWarning().getCode() + ": "
                        + scoped.getWarning().getMessage());
            }
        }
        return unreachable;
    }

    /** The instance behind a 409, if it is this owner's; an instance of another owner is never adopted. */
    private Instance adopt(InstanceId id, String ownerUid) throws ProviderException {
        Instance existing;
        try {
            existing = get(id.providerID());
        } catch (ProviderException.NotFound e) {
            throw new ProviderException.Transient("instance " + id + " already existed on insert but was gone when read back",
                    e);
        }
        if (!ownerUid.equals(existing.ownerUid())) {
            throw new ProviderException.Permanent("instance " + id + " already exists and "
                    + (existing.ownerUid() == null ? "carries no " + InsertRequests.OWNER_UID_LABEL + " label"
                    : "belongs to owner UID " + existing.ownerUid()) + ", not to this Proxy (" + ownerUid + ")");
        }
        return existing;
    }

    /**
     * Fails when the insert's operation came back already finished with an error: nothing was
     * made. An operation that fails later shows up as NotFound on the next {@code get}.
     */
    private static void refused(Operation operation, InstanceId id) throws ProviderException {
        if (!operation.hasError() || operation.getError().getErrorsCount() == 0) {
            return;
        }
        List<String> codes = operation.getError().getErrorsList().stream().map(e -> e.getCode()).toList();
        String message = "insert instance " + id + ": operation " + operation.getName() + " failed: "
                + String.join(", ", codes) + ": " + operation.getError().getErrors(0).getMessage();
        if (codes.stream().anyMatch(OUT_OF_CAPACITY::contains)) {
            throw new ProviderException.QuotaExceeded(message);
        }
        throw new ProviderException.Transient(message);
    }

    /** Releases the client's threads and connections. */
    @Override
    public void close() {
        client.close();
    }
}
