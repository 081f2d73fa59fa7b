package com.example.crawl.egress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.config.ProviderConfig;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.config.ProvidersConfig;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HTTPGetAction;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * Renders {@code deploy/base} and every overlay with the real {@code kubectl kustomize} and checks
 * what a cluster would get: a hardened single-replica Deployment wired to its Secret, ConfigMap
 * and probes; the CRDs exactly as in {@code crd/}; RBAC exactly {@link ApiAccess}, split between
 * the ClusterRole and the leader-election Role; components that select what exists; providers
 * configs the operator's own parser accepts.
 */
class DeployManifestsIT {

    private static final String NAMESPACE = "egress-proxies";
    private static final String OPERATOR = "egress-proxies-operator";
    private static final String PROVIDERS_FILE = "/etc/egress-proxies/providers.yaml";
    private static final KubernetesSerialization K8S = new KubernetesSerialization();
    private static final YAMLMapper YAML = new YAMLMapper();

    /** One rendered object: its kind and name, and the YAML kustomize wrote for it. */
    record Rendered(String kind, String name, String namespace, String yaml) {
        <T> T as(Class<T> type) {
            return K8S.unmarshal(yaml, type);
        }

        JsonNode tree() {
            return YAML.readTree(yaml);
        }
    }

    /** RBAC as ApiAccess states it: one entry per (group, resource, verb, scope). */
    record Grant(String group, String resource, String verb, ApiAccess.Scope scope) { }

    @ParameterizedTest
    @ValueSource(strings = {"base", "overlays/kind", "overlays/gcp-example", "overlays/kvm-example"})
    void shouldRunTwoHardenedReplicasWiredToTheirSecretConfigAndProbes(String dir) throws Exception {
        List<Rendered> all = render(dir);
        Deployment deployment = one(all, "Deployment", OPERATOR).as(Deployment.class);
        assertEquals(NAMESPACE, deployment.getMetadata().getNamespace());
        assertEquals(2, deployment.getSpec().getReplicas());
        assertEquals("RollingUpdate", deployment.getSpec().getStrategy().getType());
        assertEquals(0, deployment.getSpec().getStrategy().getRollingUpdate().getMaxUnavailable().getIntVal(),
                "a new replica is ready before an old one stops");
        var spread = deployment.getSpec().getTemplate().getSpec().getAffinity().getPodAntiAffinity()
                .getPreferredDuringSchedulingIgnoredDuringExecution();
        assertEquals("kubernetes.io/hostname", spread.getFirst().getPodAffinityTerm().getTopologyKey());
        assertEquals(deployment.getSpec().getSelector().getMatchLabels(),
                spread.getFirst().getPodAffinityTerm().getLabelSelector().getMatchLabels());
        PodDisruptionBudget budget = one(all, "PodDisruptionBudget", OPERATOR).as(PodDisruptionBudget.class);
        assertEquals(1, budget.getSpec().getMinAvailable().getIntVal());
        assertEquals(deployment.getSpec().getSelector().getMatchLabels(), budget.getSpec().getSelector().getMatchLabels());
        PodSpec pod = deployment.getSpec().getTemplate().getSpec();
        assertEquals(OPERATOR, pod.getServiceAccountName());
        one(all, "ServiceAccount", OPERATOR);
        assertEquals(1, pod.getContainers().size());
        Container c = pod.getContainers().getFirst();
        assertEquals("operator", c.getName());

        PodSecurityContext podSecurity = pod.getSecurityContext();
        SecurityContext security = c.getSecurityContext();
        assertTrue(Boolean.TRUE.equals(podSecurity.getRunAsNonRoot()) && Boolean.TRUE.equals(security.getRunAsNonRoot()));
        long uid = Optional.ofNullable(security.getRunAsUser()).orElse(podSecurity.getRunAsUser());
        assertTrue(uid > 0, "numeric, non-root runAsUser");
        assertEquals("RuntimeDefault", podSecurity.getSeccompProfile().getType());
        assertTrue(security.getSeccompProfile() == null || "RuntimeDefault".equals(security.getSeccompProfile().getType()));
        assertEquals(Boolean.TRUE, security.getReadOnlyRootFilesystem());
        assertEquals(Boolean.FALSE, security.getAllowPrivilegeEscalation());
        assertEquals(List.of("ALL"), security.getCapabilities().getDrop());
        assertTrue(security.getCapabilities().getAdd() == null || security.getCapabilities().getAdd().isEmpty());
        assertTrue(c.getVolumeMounts().stream().anyMatch(m -> m.getMountPath().equals("/tmp")),
                "a writable /tmp for the JVM beside the read-only root");

        Map<String, Integer> ports = new java.util.HashMap<>();
        for (ContainerPort p : c.getPorts()) {
            ports.put(p.getName(), p.getContainerPort());
        }
        assertEquals(Map.of("discovery", 8090, "metrics", 8080, "health", 8081), ports);
        List<String> args = c.getArgs() == null ? List.of() : c.getArgs();
        assertTrue(args.stream().noneMatch(a -> a.startsWith("--health-address") || a.startsWith("--metrics-address")
                || a.startsWith("--discovery-address")), "the flags' defaults are the ports above: " + args);
        assertProbe(c.getLivenessProbe().getHttpGet(), "/healthz", ports);
        assertProbe(c.getReadinessProbe().getHttpGet(), "/readyz", ports);
        assertTrue(args.stream().noneMatch(a -> a.matches("--leader-elect(=false)?")), "leader election stays on: " + args);

        EnvVar token = env(c, "DISCOVERY_TOKEN");
        assertEquals("egress-proxies-discovery-token", token.getValueFrom().getSecretKeyRef().getName());
        assertEquals("token", token.getValueFrom().getSecretKeyRef().getKey());
        assertFalse(Boolean.TRUE.equals(token.getValueFrom().getSecretKeyRef().getOptional()),
                "no token, no start: the operator refuses an unauthenticated discovery API");
        assertEquals("metadata.namespace", env(c, "POD_NAMESPACE").getValueFrom().getFieldRef().getFieldPath());
        assertEquals("status.podIP", env(c, "POD_IP").getValueFrom().getFieldRef().getFieldPath(),
                "the address the other replica forwards lease calls to");

        assertTrue(args.contains("--providers-config=" + PROVIDERS_FILE), args.toString());
        providersConfig(all, pod, c); // mounted from a ConfigMap of the render, and parses

        Map<String, Quantity> requests = c.getResources().getRequests();
        Map<String, Quantity> limits = c.getResources().getLimits();
        assertNotNull(requests.get("cpu"));
        assertNotNull(limits.get("memory"));
        assertEquals(limits.get("memory"), requests.get("memory"), "memory request = limit");
        String jvmOptions = env(c, "JAVA_TOOL_OPTIONS").getValue();
        assertTrue(jvmOptions.matches(".*-XX:MaxRAMPercentage=\\d+(\\.\\d+)?.*"),
                "the heap as a share of the container's memory");
        assertJvmStarts(jvmOptions, env(c, "MALLOC_ARENA_MAX").getValue());
        assertTrue(Files.readString(Path.of("Dockerfile")).contains("USER " + uid), "the image's USER is the uid here");
    }

    @ParameterizedTest
    @ValueSource(strings = {"base", "overlays/kind", "overlays/gcp-example", "overlays/kvm-example"})
    void shouldPutEverythingInARestrictedNamespaceAndExposeDiscoveryAndMetrics(String dir) throws Exception {
        List<Rendered> all = render(dir);
        JsonNode labels = one(all, "Namespace", NAMESPACE).tree().at("/metadata/labels");
        assertEquals("restricted", labels.get("pod-security.kubernetes.io/enforce").asString());
        Set<String> clusterScoped = Set.of("Namespace", "CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding");
        for (Rendered r : all) {
            assertEquals(clusterScoped.contains(r.kind()) ? null : NAMESPACE, r.namespace(), r.kind() + " " + r.name());
        }
        Deployment deployment = one(all, "Deployment", OPERATOR).as(Deployment.class);
        assertService(one(all, "Service", "egress-proxies-discovery").as(Service.class), deployment, "discovery", 8090);
        assertService(one(all, "Service", "egress-proxies-metrics").as(Service.class), deployment, "metrics", 8080);
    }

    @ParameterizedTest
    @ValueSource(strings = {"base", "overlays/kind", "overlays/gcp-example", "overlays/kvm-example"})
    void shouldShipTheCrdsOfCrdDirectoryUnchanged(String dir) throws Exception {
        List<Rendered> crds = render(dir).stream().filter(r -> r.kind().equals("CustomResourceDefinition")).toList();
        List<Path> files;
        try (Stream<Path> s = Files.list(Path.of("crd"))) {
            files = s.filter(p -> p.getFileName().toString().endsWith(".crawl.example.com.yaml")).sorted().toList();
        }
        assertEquals(4, files.size(), files.toString());
        assertEquals(files.size(), crds.size());
        for (Path file : files) {
            JsonNode source = YAML.readTree(file.toFile());
            String name = source.at("/metadata/name").asString();
            assertEquals(source, crds.stream().filter(r -> r.name().equals(name)).findFirst()
                    .orElseThrow(() -> new AssertionError(name + " is not in the render")).tree(), name);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"base", "overlays/kind", "overlays/gcp-example", "overlays/kvm-example"})
    void shouldGrantExactlyWhatApiAccessDeclares(String dir) throws Exception {
        List<Rendered> all = render(dir);
        Set<Grant> granted = new TreeSet<>(GRANT_ORDER);
        ClusterRole clusterRole = one(all, "ClusterRole", OPERATOR).as(ClusterRole.class);
        clusterRole.getRules().forEach(rule -> expand(rule, ApiAccess.Scope.CLUSTER, granted));
        Role role = one(all, "Role", "egress-proxies-leader-election").as(Role.class);
        role.getRules().forEach(rule -> expand(rule, ApiAccess.Scope.OPERATOR_NAMESPACE, granted));
        assertEquals(2, all.stream().filter(r -> r.kind().endsWith("Role")).count(), "one ClusterRole, one Role");

        Set<Grant> declared = new TreeSet<>(GRANT_ORDER);
        for (ApiAccess.Rule rule : ApiAccess.RULES) {
            rule.verbs().forEach(v -> declared.add(new Grant(rule.group(), rule.resource(), v, rule.scope())));
        }
        Set<Grant> missing = new TreeSet<>(GRANT_ORDER);
        missing.addAll(declared);
        missing.removeAll(granted);
        Set<Grant> extra = new TreeSet<>(GRANT_ORDER);
        extra.addAll(granted);
        extra.removeAll(declared);
        assertEquals(Set.of(), missing, "the operator calls these and deploy/base/rbac.yaml does not grant them");
        assertEquals(Set.of(), extra, "deploy/base/rbac.yaml grants these and the operator never calls them");

        ClusterRoleBinding clusterBinding = one(all, "ClusterRoleBinding", OPERATOR).as(ClusterRoleBinding.class);
        assertEquals("ClusterRole/" + OPERATOR, clusterBinding.getRoleRef().getKind() + "/" + clusterBinding.getRoleRef().getName());
        assertOperatorIsTheOnlySubject(clusterBinding.getSubjects());
        RoleBinding binding = one(all, "RoleBinding", "egress-proxies-leader-election").as(RoleBinding.class);
        assertEquals("Role/" + role.getMetadata().getName(), binding.getRoleRef().getKind() + "/" + binding.getRoleRef().getName());
        assertOperatorIsTheOnlySubject(binding.getSubjects());
        // The Lease lives in $POD_NAMESPACE, which is where the Role is.
        assertEquals(one(all, "Deployment", OPERATOR).namespace(), role.getMetadata().getNamespace());
    }

    @Test
    void shouldUseEveryComponentInSomeOverlayAndSelectWhatExists() throws Exception {
        List<String> used = new ArrayList<>();
        for (String overlay : overlays()) {
            YAML.readTree(Path.of("deploy", overlay, "kustomization.yaml").toFile()).path("components")
                    .forEach(c -> used.add(Path.of("deploy", overlay).resolve(c.asString()).normalize().toString()));
        }
        try (Stream<Path> s = Files.list(Path.of("deploy/components"))) {
            for (Path component : s.toList()) {
                assertTrue(used.contains(component.toString()), component + " is in no overlay, so nothing renders it");
            }
        }

        List<Rendered> gcp = render("overlays/gcp-example");
        Service metrics = one(gcp, "Service", "egress-proxies-metrics").as(Service.class);
        JsonNode monitor = one(gcp, "ServiceMonitor", OPERATOR).tree();
        assertEquals(NAMESPACE, monitor.at("/metadata/namespace").asString());
        monitor.at("/spec/selector/matchLabels").properties().forEach(e -> assertEquals(e.getValue().asString(),
                metrics.getMetadata().getLabels().get(e.getKey()), "ServiceMonitor selects the metrics Service: " + e));
        monitor.at("/spec/endpoints").forEach(e -> assertTrue(metrics.getSpec().getPorts().stream()
                .anyMatch(p -> p.getName().equals(e.get("port").asString())), "port " + e.get("port")));
        assertEquals(NAMESPACE, one(gcp, "PrometheusRule", OPERATOR).tree().at("/metadata/namespace").asString());
        assertEquals("1", one(gcp, "ConfigMap", "egress-proxies-dashboard").tree().at("/metadata/labels/grafana_dashboard")
                .asString(), "the monitoring component's dashboard, for Grafana's sidecar");

        List<Rendered> kind = render("overlays/kind");
        Map<String, String> podLabels = one(kind, "Deployment", OPERATOR).as(Deployment.class).getSpec().getTemplate()
                .getMetadata().getLabels();
        NetworkPolicy operator = one(kind, "NetworkPolicy", OPERATOR).as(NetworkPolicy.class);
        assertTrue(podLabels.entrySet().containsAll(operator.getSpec().getPodSelector().getMatchLabels().entrySet()));
        NetworkPolicyIngressRule discovery = operator.getSpec().getIngress().stream()
                .filter(r -> r.getPorts().stream().anyMatch(p -> p.getPort().getIntVal() == 8090)).findFirst().orElseThrow();
        assertEquals(3, discovery.getFrom().size(), "crawler namespaces, the other replica and the Squid pods reach discovery");
        assertEquals(Map.of("crawl.example.com/egress-client", "true"),
                discovery.getFrom().getFirst().getNamespaceSelector().getMatchLabels(), "only crawler namespaces");
        assertEquals(null, discovery.getFrom().getFirst().getPodSelector());
        assertEquals(null, discovery.getFrom().get(1).getNamespaceSelector(), "of the operator's own namespace only");
        assertEquals(operator.getSpec().getPodSelector().getMatchLabels(),
                discovery.getFrom().get(1).getPodSelector().getMatchLabels(), "the operator's replicas, forwarding leases");
        assertEquals(null, discovery.getFrom().get(2).getNamespaceSelector(), "the Squid pods of the operator's namespace");
        assertEquals(Map.of(Proxy.MANAGED_LABEL, "true"), discovery.getFrom().get(2).getPodSelector().getMatchLabels(),
                "their auth helpers ask for their lease lists");

        NetworkPolicy squid = one(kind, "NetworkPolicy", "egress-proxies-squid").as(NetworkPolicy.class);
        assertEquals(Map.of(Proxy.MANAGED_LABEL, "true"), squid.getSpec().getPodSelector().getMatchLabels(),
                "the label every Squid pod of the kubernetes provider carries");
        assertEquals(1, squid.getSpec().getIngress().size());
        var from = squid.getSpec().getIngress().getFirst().getFrom();
        assertTrue(from.stream().anyMatch(p -> p.getNamespaceSelector() != null && Map.of("crawl.example.com/egress-client",
                "true").equals(p.getNamespaceSelector().getMatchLabels()) && p.getPodSelector() == null));
        assertTrue(from.stream().anyMatch(p -> p.getNamespaceSelector() == null && p.getPodSelector() != null
                && podLabels.entrySet().containsAll(p.getPodSelector().getMatchLabels().entrySet())),
                "the operator probes through its Squid pods");
        assertEquals(2, from.size(), from.toString());
    }

    @Test
    void shouldConfigureKindForSquidPodsBesideTheOperator() throws Exception {
        List<Rendered> all = render("overlays/kind");
        Deployment deployment = one(all, "Deployment", OPERATOR).as(Deployment.class);
        Container c = deployment.getSpec().getTemplate().getSpec().getContainers().getFirst();
        assertEquals("egress-proxies-operator:dev", c.getImage());
        assertEquals("IfNotPresent", c.getImagePullPolicy());
        assertTrue(c.getArgs().contains("--egress-deny-cidrs=10.96.0.0/12,10.244.0.0/16"), c.getArgs().toString());
        ProvidersConfig config = providersConfig(all, deployment.getSpec().getTemplate().getSpec(), c);
        assertEquals(1, config.providers().size());
        ProviderConfig provider = config.providers().getFirst();
        assertEquals("in-cluster", provider.name());
        ProviderConfig.Kubernetes settings = (ProviderConfig.Kubernetes) provider.settings();
        assertEquals(NAMESPACE, settings.namespace(), "where the NetworkPolicy component covers the Squid pods");
        assertEquals(ProvidersConfig.NONE, providersConfig(render("base"), deployment.getSpec().getTemplate().getSpec(), c));
    }

    @ParameterizedTest
    @ValueSource(strings = {"gcp-example", "kvm-example"})
    void shouldShowExampleProvidersWhoseKeyFilesAreMounted(String overlay) throws Exception {
        String kustomization = Files.readString(Path.of("deploy/overlays", overlay, "kustomization.yaml"));
        assertTrue(kustomization.startsWith("# EXAMPLE ONLY"), "says it is an example");
        List<Rendered> all = render("overlays/" + overlay);
        Deployment deployment = one(all, "Deployment", OPERATOR).as(Deployment.class);
        PodSpec pod = deployment.getSpec().getTemplate().getSpec();
        Container c = pod.getContainers().getFirst();
        ProvidersConfig config = providersConfig(all, pod, c);
        List<Path> files = new ArrayList<>();
        for (ProviderConfig p : config.providers()) {
            switch (p.settings()) {
                case ProviderConfig.Gcp g -> files.add(g.credentialsFile().orElseThrow());
                case ProviderConfig.Kvm k -> k.hosts().forEach(h -> files.addAll(List.of(h.privateKeyFile(), h.knownHostsFile())));
                default -> fail("unexpected provider type " + p.type() + " in " + overlay);
            }
        }
        assertFalse(files.isEmpty());
        // The operator would start with these flags: a gcp or kvm entry needs --cluster-name.
        OperatorConfig flags = OperatorConfig.parse(c.getArgs(), Map.of("DISCOVERY_TOKEN", "t"));
        if (config.providers().stream().anyMatch(p -> p.type().equals("gcp") || p.type().equals("kvm"))) {
            assertFalse(flags.clusterName().isEmpty(), "a gcp or kvm provider needs --cluster-name: " + c.getArgs());
        }
        for (Path file : files) {
            VolumeMount mount = c.getVolumeMounts().stream().filter(m -> file.startsWith(m.getMountPath())).findFirst()
                    .orElseThrow(() -> new AssertionError(file + " is not under any volume mount"));
            Volume volume = pod.getVolumes().stream().filter(v -> v.getName().equals(mount.getName())).findFirst().orElseThrow();
            assertNotNull(volume.getSecret(), file + " comes from a Secret");
        }
    }

    /** The providers config the Deployment mounts at PROVIDERS_FILE, parsed by the operator's parser. */
    private static ProvidersConfig providersConfig(List<Rendered> all, PodSpec pod, Container c) throws Exception {
        VolumeMount mount = c.getVolumeMounts().stream()
                .filter(m -> m.getMountPath().equals(PROVIDERS_FILE)
                        || PROVIDERS_FILE.equals(m.getMountPath() + "/providers.yaml") && m.getSubPath() == null)
                .findFirst().orElseThrow(() -> new AssertionError("nothing is mounted at " + PROVIDERS_FILE));
        String key = mount.getSubPath() == null ? "providers.yaml" : mount.getSubPath();
        Volume volume = pod.getVolumes().stream().filter(v -> v.getName().equals(mount.getName())).findFirst().orElseThrow();
        assertNotNull(volume.getConfigMap(), "the providers config is a ConfigMap");
        ConfigMap map = one(all, "ConfigMap", volume.getConfigMap().getName()).as(ConfigMap.class);
        String yaml = map.getData().get(key);
        assertNotNull(yaml, "ConfigMap " + map.getMetadata().getName() + " has no key " + key);
        return ProvidersConfig.parse(yaml);
    }

    private static void assertProbe(HTTPGetAction get, String path, Map<String, Integer> ports) {
        assertEquals(path, get.getPath());
        IntOrString port = get.getPort();
        assertEquals(8081, port.getIntVal() != null ? port.getIntVal() : ports.get(port.getStrVal()), path + " on 8081");
    }

    private static void assertService(Service service, Deployment deployment, String portName, int port) {
        assertEquals(deployment.getSpec().getSelector().getMatchLabels(), service.getSpec().getSelector());
        ServicePort p = service.getSpec().getPorts().stream().filter(x -> x.getName().equals(portName)).findFirst().orElseThrow();
        assertEquals(port, p.getPort());
        Container c = deployment.getSpec().getTemplate().getSpec().getContainers().getFirst();
        int target = p.getTargetPort().getIntVal() != null ? p.getTargetPort().getIntVal()
                : c.getPorts().stream().filter(x -> x.getName().equals(p.getTargetPort().getStrVal())).findFirst()
                        .orElseThrow().getContainerPort();
        assertEquals(port, target);
    }

    private static void assertOperatorIsTheOnlySubject(List<Subject> subjects) {
        assertEquals(1, subjects.size());
        Subject s = subjects.getFirst();
        assertEquals(List.of("ServiceAccount", OPERATOR, NAMESPACE), List.of(s.getKind(), s.getName(), s.getNamespace()));
    }

    private static void expand(PolicyRule rule, ApiAccess.Scope scope, Set<Grant> into) {
        assertTrue(rule.getResourceNames() == null || rule.getResourceNames().isEmpty(), "no resourceNames: " + rule);
        assertTrue(rule.getNonResourceURLs() == null || rule.getNonResourceURLs().isEmpty(), "no nonResourceURLs: " + rule);
        for (String group : rule.getApiGroups()) {
            for (String resource : rule.getResources()) {
                for (String verb : rule.getVerbs()) {
                    into.add(new Grant(group, resource, verb, scope));
                }
            }
        }
    }

    private static final java.util.Comparator<Grant> GRANT_ORDER = java.util.Comparator.comparing(Grant::scope)
            .thenComparing(Grant::group).thenComparing(Grant::resource).thenComparing(Grant::verb);

    /**
     * The pod's JVM options and malloc setting start this JDK (the image's Temurin 25): an option it
     * did not know would keep every pod from starting.
     */
    private static void assertJvmStarts(String options, String arenas) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-version").redirectErrorStream(true);
        pb.environment().put("JAVA_TOOL_OPTIONS", options);
        pb.environment().put("MALLOC_ARENA_MAX", arenas);
        Process java = pb.start();
        String out = new String(java.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(java.waitFor(30, TimeUnit.SECONDS), "java -version did not end");
        assertEquals(0, java.exitValue(), out);
        assertTrue(out.contains("Picked up JAVA_TOOL_OPTIONS: " + options), out);
    }

    private static EnvVar env(Container c, String name) {
        return c.getEnv().stream().filter(e -> e.getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no env " + name));
    }

    private static Rendered one(List<Rendered> all, String kind, String name) {
        List<Rendered> found = all.stream().filter(r -> r.kind().equals(kind) && r.name().equals(name)).toList();
        assertEquals(1, found.size(), kind + " " + name + " in the render");
        return found.getFirst();
    }

    private static List<String> overlays() throws IOException {
        try (Stream<Path> s = Files.list(Path.of("deploy/overlays"))) {
            return s.map(p -> "overlays/" + p.getFileName()).sorted().toList();
        }
    }

    /** {@code kubectl kustomize deploy/<dir>}, split into its objects. */
    static List<Rendered> render(String dir) throws IOException, InterruptedException {
        Process p;
        try {
            p = new ProcessBuilder("kubectl", "kustomize", Path.of("deploy", dir).toString()).start();
        } catch (IOException e) {
            ItRequirements.require("kubectl", false, "apt-get install kubectl, or put a kubectl with kustomize on the PATH");
            throw e;
        }
        byte[] err;
        String out;
        try (var stdout = p.getInputStream(); var stderr = p.getErrorStream()) {
            out = new String(stdout.readAllBytes(), StandardCharsets.UTF_8);
            err = stderr.readAllBytes();
        }
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "kubectl kustomize did not finish");
        assertEquals(0, p.exitValue(), "kubectl kustomize deploy/" + dir + ": " + new String(err, StandardCharsets.UTF_8));
        List<Rendered> all = new ArrayList<>();
        for (String doc : out.split("(?m)^---\\s*$")) {
            if (doc.isBlank()) {
                continue;
            }
            JsonNode tree = YAML.readTree(doc);
            JsonNode ns = tree.at("/metadata/namespace");
            all.add(new Rendered(tree.get("kind").asString(), tree.at("/metadata/name").asString(),
                    ns.isMissingNode() ? null : ns.asString(), doc));
        }
        assertFalse(all.isEmpty(), "deploy/" + dir + " rendered nothing");
        return all;
    }

    @Test
    void shouldRenderEveryOverlay() throws Exception {
        assertEquals(List.of("overlays/gcp-example", "overlays/kind", "overlays/kvm-example"), overlays(),
                "each overlay is checked above by name; a new one needs its checks");
    }
}
