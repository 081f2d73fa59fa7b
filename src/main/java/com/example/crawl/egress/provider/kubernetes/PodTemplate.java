package com.example.crawl.egress.provider.kubernetes;

import com.example.crawl.egress.api.KubernetesSpec;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.config.ProviderConfig;
import com.example.crawl.egress.provider.CreateRequest;
import com.example.crawl.egress.provider.EgressPolicy;
import com.example.crawl.egress.provider.SquidAccessRules;
import com.example.crawl.egress.provider.SquidAuth;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.KeyToPathBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSecurityContextBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The Squid pod for one Proxy, as a pure function of the request and the provider's settings:
 * the same inputs always give the same pod, and nothing here talks to the API.
 *
 * <p>The pod runs Canonical's {@code ubuntu/squid} image with our own command. The image's stock
 * configuration listens on 3128 and serves only private source addresses, and Squid takes its
 * listening port from a configuration file, not from a flag. So the container gets the whole
 * configuration in the {@value #CONFIG_ENV} environment variable and a {@code /bin/sh} command
 * that writes it to {@value #CONFIG_FILE} and {@code exec}s {@code squid -N} on it: Squid is the
 * container's main process (it gets SIGTERM on delete), the configuration needs no ConfigMap to
 * create, garbage-collect or grant RBAC for, and {@code kubectl describe pod} shows it (it holds
 * no secret: the auth helper's password and lease key files come from {@link #secret}, mounted
 * read-only). The helper asks the operator for the proxy's lease list at the policy's URL (the
 * discovery Service), so that credentials of a lease released early end within the grace.
 *
 * <p>Hardened: no service-account token, seccomp {@code RuntimeDefault}, Squid started directly as
 * the image's unprivileged {@code proxy} user ({@value #SQUID_UID}) with every capability dropped
 * and no privilege escalation, a read-only root file system with an {@code emptyDir} at
 * {@value #WRITABLE_DIR} for the configuration, and, for a port below 1024, the pod-level sysctl
 * that lets an unprivileged process bind it.
 *
 * <p>Cloud-init has no meaning for a pod and is ignored; so are the GCP and KVM blocks.
 */
final class PodTemplate {

    /** Marks every pod this operator made; {@code listByTag} and the checker select on it. */
    static final String MANAGED_LABEL = Proxy.MANAGED_LABEL;
    /** UID of the owning Proxy: garbage collection's proof of ownership. */
    static final String OWNER_UID_LABEL = Proxy.OWNER_UID_LABEL;
    /** The owning Proxy's namespace, for {@code kubectl get pods -l}. */
    static final String PROXY_NAMESPACE_LABEL = "crawl.example.com/proxy-namespace";
    /** The owning Proxy's name, when it fits in a label value (63 characters). */
    static final String PROXY_NAME_LABEL = "crawl.example.com/proxy-name";
    /** {@code <namespace>/<name>} of the owning Proxy, whatever its length. */
    static final String PROXY_ANNOTATION = "crawl.example.com/proxy";
    static final String CONTAINER = "squid";
    static final String PORT_NAME = "proxy";
    static final String CONFIG_ENV = "SQUID_CONFIG";
    /** The only writable directory: an {@code emptyDir}. */
    static final String WRITABLE_DIR = "/tmp";
    static final String CONFIG_FILE = WRITABLE_DIR + "/squid.conf";
    /**
     * Where the pod's Secret is mounted, read-only: the auth helper's files ({@link SquidAuth}),
     * each under its file name as the Secret's key.
     */
    static final String AUTH_DIR = "/etc/squid/egress-auth";
    /** {@code proxy} in Debian's and Ubuntu's base-passwd, which the image inherits. */
    static final long SQUID_UID = 13;
    /** The lowest port an unprivileged process may bind without the pod's sysctl. */
    private static final int FIRST_UNPRIVILEGED_PORT = 1024;
    private static final String TMP_VOLUME = "tmp";
    private static final String AUTH_VOLUME = "auth";
    private static final List<String> AUTH_FILES =
            List.of(SquidAuth.PASSWORD_FILE, SquidAuth.KEY_FILE, SquidAuth.HELPER_FILE);

    private static final int MAX_LABEL_VALUE = 63;
    private static final Pattern LABEL_VALUE = Pattern.compile("([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?");

    private PodTemplate() {
    }

    /**
     * The pod to create for {@code req} in {@code namespace}.
     *
     * @param providerImage the provider's {@code image} setting; empty means the pinned default
     */
    static Pod build(CreateRequest req, String namespace, String providerImage, EgressPolicy policy) {
        return new PodBuilder()
                .withMetadata(metadata(req, namespace).build())
                .withNewSpec()
                    .withContainers(container(req, image(req.kubernetes(), providerImage), policy))
                    .withRestartPolicy("Always")
                    // Squid never talks to the API; a mounted token would only be something to steal.
                    .withAutomountServiceAccountToken(false)
                    // Nor does it need an environment variable per Service in the namespace.
                    .withEnableServiceLinks(false)
                    .withSecurityContext(podSecurity(req.port()))
                    .addNewVolume().withName(TMP_VOLUME)
                        .withNewEmptyDir().withSizeLimit(new Quantity("64Mi")).endEmptyDir()
                    .endVolume()
                    .addNewVolume().withName(AUTH_VOLUME)
                        .withNewSecret().withSecretName(req.name()).withDefaultMode(0440)
                            .withItems(AUTH_FILES.stream().map(f -> new KeyToPathBuilder().withKey(f).withPath(f).build()).toList())
                        .endSecret()
                    .endVolume()
                .endSpec()
                .build();
    }

    /**
     * The Secret that carries the pod's auth files: named like the pod, in its namespace (a pod
     * can mount no Secret of another namespace, and the Proxy's own credentials Secret may be in
     * one), holding the hashed password line (never the password), the lease key and the helper.
     * Owned by the pod, so Kubernetes removes it with the pod; labelled like the pod, so garbage
     * collection finds it too.
     *
     * @param podUid    the created pod's UID, for the owner reference
     * @param authFiles the helper's files by name ({@link SquidAuth#files})
     */
    static Secret secret(CreateRequest req, String namespace, String podUid, Map<String, String> authFiles) {
        return new SecretBuilder()
                .withMetadata(metadata(req, namespace)
                        .addNewOwnerReference().withApiVersion("v1").withKind("Pod").withName(req.name()).withUid(podUid)
                        .endOwnerReference().build())
                .withType("Opaque")
                .withData(authFiles.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey,
                        e -> Base64.getEncoder().encodeToString(e.getValue().getBytes(StandardCharsets.UTF_8)))))
                .build();
    }

    /**
     * Runs as {@code proxy} from the start, so Squid never needs root to switch users; the group owns
     * the mounted password file ({@code fsGroup}). A port below 1024 needs the (namespaced, "safe")
     * sysctl that lowers the unprivileged port range, since no capability is kept.
     */
    private static PodSecurityContext podSecurity(int port) {
        PodSecurityContextBuilder security = new PodSecurityContextBuilder()
                .withRunAsNonRoot(true).withRunAsUser(SQUID_UID).withRunAsGroup(SQUID_UID).withFsGroup(SQUID_UID)
                .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile();
        if (port < FIRST_UNPRIVILEGED_PORT) {
            security.addNewSysctl().withName("net.ipv4.ip_unprivileged_port_start").withValue(Integer.toString(port))
                    .endSysctl();
        }
        return security.build();
    }

    /** What the pod and its Secret share: the instance's name, the namespace, labels and annotation. */
    private static ObjectMetaBuilder metadata(CreateRequest req, String namespace) {
        return new ObjectMetaBuilder().withName(req.name()).withNamespace(namespace).withLabels(labels(req))
                .withAnnotations(Map.of(PROXY_ANNOTATION, req.namespace() + "/" + req.proxyName()));
    }

    /** The Proxy's image if it names one, else the provider's, else the pinned default. */
    static String image(KubernetesSpec spec, String providerImage) {
        if (spec != null && spec.image() != null && !spec.image().isBlank()) {
            return spec.image();
        }
        if (providerImage != null && !providerImage.isBlank()) {
            return providerImage;
        }
        return ProviderConfig.Kubernetes.DEFAULT_IMAGE;
    }

    /**
     * The pod's labels: the managed marker and owner UID that listing and garbage collection rely
     * on, and the Proxy's namespace and name for people (the name only when it is a valid label
     * value; the annotation always carries it).
     */
    static Map<String, String> labels(CreateRequest req) {
        Map<String, String> labels = new TreeMap<>();
        labels.put(MANAGED_LABEL, "true");
        labels.put(OWNER_UID_LABEL, req.ownerUid());
        labels.put(PROXY_NAMESPACE_LABEL, req.namespace());
        if (req.proxyName().length() <= MAX_LABEL_VALUE && LABEL_VALUE.matcher(req.proxyName()).matches()) {
            labels.put(PROXY_NAME_LABEL, req.proxyName());
        }
        return labels;
    }

    /**
     * Squid's whole configuration for a pod listening on {@code port}.
     *
     * <ul>
     *   <li>clients: private (RFC 1918, RFC 6598 shared, IPv6 unique-local and link-local)
     *       addresses, where pod networks live, and loopback for {@code kubectl port-forward};
     *       never the open internet, should someone expose the pod through a load balancer;</li>
     *   <li>then {@link SquidAccessRules}: credentials from the mounted password file, no cache
     *       manager, {@code CONNECT} only to the policy's ports, no internal destinations;</li>
     *   <li>no cache, and no {@code Via} or {@code X-Forwarded-For}: an egress proxy forwards, and
     *       must not tell sites the crawler's cluster address;</li>
     *   <li>no access log and {@code cache.log} to nowhere: files in a pod are never rotated and
     *       would fill the node's disk at crawler rates (and the root file system is read-only);
     *       {@code -d 1} on the command line sends Squid's own messages to stderr, which
     *       {@code kubectl logs} shows;</li>
     *   <li>a bounded descriptor table: Squid sizes it from the container's open-files limit,
     *       which can be a billion, and would run out of memory doing so;</li>
     *   <li>no pinger: it needs raw sockets (a capability the pod does not have) for a cache
     *       hierarchy we do not have.</li>
     * </ul>
     *
     * @param authDir where the auth helper's files are
     * @param list    where the helper asks for the lease list, if it can
     */
    static String squidConfig(int port, EgressPolicy policy, String authDir, Optional<SquidAuth.LeaseList> list) {
        List<String> lines = new ArrayList<>(List.of(
                "http_port " + port,
                "acl egress_clients src 10.0.0.0/8 100.64.0.0/10 172.16.0.0/12 192.168.0.0/16 fc00::/7 fe80::/10 "
                        + "127.0.0.0/8 ::1",
                "http_access deny !egress_clients"));
        lines.addAll(SquidAccessRules.lines(policy, SquidAuth.program(SquidAuth.PERL, authDir, list)));
        lines.addAll(List.of(
                "cache deny all",
                "cache_mem 8 MB",
                "via off",
                "forwarded_for delete",
                "access_log none",
                "cache_log /dev/null",
                "pid_filename none",
                "max_filedescriptors 16384",
                "pinger_enable off",
                "shutdown_lifetime 5 seconds",
                ""));
        return String.join("\n", lines);
    }

    /**
     * The container's command: write {@value #CONFIG_ENV} to {@code configFile}, then become
     * Squid, in the foreground ({@code -N}) with its messages on stderr ({@code -d 1}). The
     * configuration travels as data, never through the shell's parser.
     */
    static List<String> command(String configFile) {
        return List.of("/bin/sh", "-c",
                "printf '%s\\n' \"$" + CONFIG_ENV + "\" > " + configFile + " && exec squid -N -d 1 -f " + configFile);
    }

    private static Container container(CreateRequest req, String image, EgressPolicy policy) {
        return new ContainerBuilder()
                .withName(CONTAINER)
                .withImage(image)
                .withCommand(command(CONFIG_FILE))
                .addNewEnv().withName(CONFIG_ENV)
                    .withValue(squidConfig(req.port(), policy, AUTH_DIR, policy.leaseLists().map(
                            url -> new SquidAuth.LeaseList(url, req.namespace() + "/" + req.proxyName())))).endEnv()
                .withNewSecurityContext()
                    .withRunAsNonRoot(true)
                    .withAllowPrivilegeEscalation(false)
                    .withReadOnlyRootFilesystem(true)
                    .withNewCapabilities().withDrop("ALL").endCapabilities()
                .endSecurityContext()
                .addNewVolumeMount().withName(TMP_VOLUME).withMountPath(WRITABLE_DIR).endVolumeMount()
                .addNewVolumeMount().withName(AUTH_VOLUME).withMountPath(AUTH_DIR).withReadOnly(true).endVolumeMount()
                .addNewPort().withName(PORT_NAME).withContainerPort(req.port()).withProtocol("TCP").endPort()
                .withNewReadinessProbe()
                    .withNewTcpSocket().withPort(new IntOrString(req.port())).endTcpSocket()
                    .withPeriodSeconds(5)
                .endReadinessProbe()
                .withResources(new ResourceRequirementsBuilder()
                        .withRequests(quantities(req.kubernetes() == null ? null : req.kubernetes().resources(), true))
                        .withLimits(quantities(req.kubernetes() == null ? null : req.kubernetes().resources(), false))
                        .build())
                .build();
    }

    /**
     * The Proxy's requests or limits as quantities, kept as written. An invalid one (the CRD's
     * pattern should have stopped it) is left for the API server to refuse with a 422.
     */
    private static Map<String, Quantity> quantities(KubernetesSpec.Resources resources, boolean requests) {
        Map<String, Quantity> out = new LinkedHashMap<>();
        if (resources != null) {
            (requests ? resources.requests() : resources.limits()).forEach((k, v) -> out.put(k, new Quantity(v)));
        }
        return out;
    }
}
