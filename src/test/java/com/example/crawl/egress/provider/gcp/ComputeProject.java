package com.example.crawl.egress.provider.gcp;

import com.example.crawl.egress.config.ConfigException;
import com.example.crawl.egress.config.ProviderConfig;
import com.example.crawl.egress.provider.EgressPolicy;
import com.google.cloud.compute.v1.AccessConfig;
import com.google.cloud.compute.v1.Instance;
import com.google.cloud.compute.v1.NetworkInterface;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A model of one Compute Engine project behind {@link FakeCompute}, for tests and benchmarks that
 * run the reconciler or the orphan sweep against the real client: inserts make VMs, {@code get}
 * reads them, {@code delete} takes them away, {@code aggregatedList} pages through them with
 * Google's label filter. A VM runs (with a loopback NAT address nobody sends to) as soon as it is
 * inserted; a deleted one is still seen {@code STOPPING} by the next read, then is gone. Requests
 * are kept in order with the status answered, as {@code METHOD zones/<zone>/instances[/<name>] STATUS}
 * or {@code LIST STATUS}.
 *
 * <p>Public for the controller's and the sweeper's tests, which run it from other packages.
 */
public final class ComputeProject implements AutoCloseable {

    public static final String PROJECT = FakeCompute.PROJECT;

    private static final Pattern INSTANCES = Pattern.compile(
            "/compute/v1/projects/" + PROJECT + "/zones/([^/]+)/instances(?:/([^/]+))?");
    private static final String LIST_PATH = "/compute/v1/projects/" + PROJECT + "/aggregated/instances";
    private static final Pattern LABEL_TERM = Pattern.compile("labels\\.([a-z0-9_-]+) = \"([^\"]*)\"");

    private final FakeCompute fake = FakeCompute.start();
    private final Map<String, Instance> vms = new TreeMap<>(); // by "zones/<zone>/instances/<name>"; guarded by this
    private final List<String> log = new ArrayList<>(); // guarded by this
    private long nextId = 1; // guarded by this

    private ComputeProject() {
        fake.otherwise(new FakeCompute.Serve(this::answer));
    }

    public static ComputeProject start() {
        return new ComputeProject();
    }

    /** {@code http://127.0.0.1:<port>}: the providers-config {@code endpoint} of this project. */
    public String endpoint() {
        return fake.endpoint();
    }

    /** A {@code gcp} provider of installation {@code cluster} on this project, built as {@code Backend} builds one. */
    public GcpProvider provider(String cluster) throws ConfigException {
        return GcpProvider.create(new ProviderConfig("gcp-test", new ProviderConfig.Gcp(PROJECT, fake.endpoint(),
                Optional.empty())), cluster, EgressPolicy.DEFAULT);
    }

    /** The providerIDs of the VMs that exist, sorted. */
    public synchronized List<String> instances() {
        return List.copyOf(vms.keySet());
    }

    /** A VM's labels. */
    public synchronized Map<String, String> labels(String providerID) {
        return Map.copyOf(vms.get(providerID).getLabelsMap());
    }

    /** Every request so far, in order. */
    public synchronized List<String> log() {
        return List.copyOf(log);
    }

    /** How many requests so far started with {@code prefix} ({@code "GET "}, {@code "POST "}, {@code "LIST"}, ...). */
    public synchronized long count(String prefix) {
        return log.stream().filter(line -> line.startsWith(prefix)).count();
    }

    /** Makes a running VM as someone else would have: {@code labels} as given, created at {@code created}. */
    public synchronized void seed(String zone, String name, Map<String, String> labels, Instant created) {
        vms.put(id(zone, name), running(Instance.newBuilder().setName(name).putAllLabels(labels), zone)
                .setCreationTimestamp(created.toString()).build());
    }

    /** Stops a VM from outside the operator: it is {@code TERMINATED} from now on. */
    public synchronized void terminate(String providerID) {
        vms.computeIfPresent(providerID, (id, vm) -> vm.toBuilder().setStatus("TERMINATED").clearNetworkInterfaces().build());
    }

    private synchronized FakeCompute.Reply answer(FakeCompute.Request request) {
        if (request.path().equals(LIST_PATH) && request.method().equals("GET")) {
            return logged("LIST", list(request.query()));
        }
        Matcher m = INSTANCES.matcher(request.path());
        if (!m.matches()) {
            return logged(request.method() + " " + request.path(), FakeCompute.error(404, "NOT_FOUND", "notFound",
                    "The resource '" + request.path() + "' was not found"));
        }
        String zone = m.group(1);
        String name = m.group(2);
        return logged(request.method() + " zones/" + zone + "/instances" + (name == null ? "" : "/" + name),
                switch (request.method()) {
                    case "POST" -> insert(zone, FakeCompute.parseInstance(request.body()));
                    case "GET" -> get(id(zone, name));
                    case "DELETE" -> delete(zone, name);
                    default -> FakeCompute.error(400, "INVALID_ARGUMENT", "invalid", "method " + request.method());
                });
    }

    private FakeCompute.Reply logged(String request, FakeCompute.Reply reply) {
        log.add(request + " " + reply.status());
        return reply;
    }

    private FakeCompute.Reply insert(String zone, Instance vm) {
        String id = id(zone, vm.getName());
        if (vms.containsKey(id)) {
            return FakeCompute.error(409, "ALREADY_EXISTS", "alreadyExists",
                    "The resource 'projects/" + PROJECT + "/" + id + "' already exists");
        }
        vms.put(id, running(vm.toBuilder(), zone).setCreationTimestamp(Instant.now().toString()).build());
        return FakeCompute.operation("insert", zone, vm.getName(), "RUNNING");
    }

    private FakeCompute.Reply get(String id) {
        Instance vm = read(id);
        return vm == null ? notFound(id) : FakeCompute.instance(vm);
    }

    private FakeCompute.Reply delete(String zone, String name) {
        String id = id(zone, name);
        Instance vm = vms.get(id);
        if (vm == null) {
            return notFound(id);
        }
        vms.put(id, vm.toBuilder().setStatus("STOPPING").build());
        return FakeCompute.operation("delete", zone, name, "RUNNING");
    }

    /** One page: the filtered VMs from {@code pageToken} (an offset), at most {@code maxResults}. */
    private FakeCompute.Reply list(Map<String, String> query) {
        Map<String, String> wanted = new TreeMap<>();
        Matcher term = LABEL_TERM.matcher(query.getOrDefault("filter", ""));
        while (term.find()) {
            wanted.put(term.group(1), term.group(2));
        }
        List<String> matching = vms.entrySet().stream()
                .filter(e -> e.getValue().getLabelsMap().entrySet().containsAll(wanted.entrySet()))
                .map(Map.Entry::getKey).toList();
        int from = Integer.parseInt(query.getOrDefault("pageToken", "0"));
        int size = Integer.parseInt(query.getOrDefault("maxResults", "500"));
        int to = Math.min(matching.size(), from + size);
        Map<String, List<Instance>> byZone = new TreeMap<>();
        for (String id : matching.subList(from, to)) {
            Instance vm = read(id);
            if (vm != null) {
                byZone.computeIfAbsent("zones/" + ComputeInstance.zoneName(vm.getZone()), z -> new ArrayList<>()).add(vm);
            }
        }
        return FakeCompute.page(byZone, Map.of(), to < matching.size() ? Integer.toString(to) : "");
    }

    /** The VM as a read sees it; a deleted one is seen stopping once, then is gone. */
    private Instance read(String id) {
        Instance vm = vms.get(id);
        if (vm != null && vm.getStatus().equals("STOPPING")) {
            vms.remove(id);
        }
        return vm;
    }

    private Instance.Builder running(Instance.Builder vm, String zone) {
        long n = nextId++;
        return vm.setId(n).setZone(FakeCompute.zoneUrl(zone)).setStatus("RUNNING").clearNetworkInterfaces()
                .addNetworkInterfaces(NetworkInterface.newBuilder().setNetworkIP("10.128.0." + (n % 250 + 2))
                        .addAccessConfigs(AccessConfig.newBuilder().setName(InsertRequests.NAT_NAME)
                                .setType(InsertRequests.ONE_TO_ONE_NAT)
                                .setNatIP("127.1." + (n / 250 % 250) + "." + (n % 250 + 1))));
    }

    private static FakeCompute.Reply notFound(String id) {
        return FakeCompute.error(404, "NOT_FOUND", "notFound", "The resource 'projects/" + PROJECT + "/" + id
                + "' was not found");
    }

    private static String id(String zone, String name) {
        return new InstanceId(zone, name).providerID();
    }

    @Override
    public void close() {
        fake.close();
    }
}
