package com.example.crawl.egress.local;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * An in-process Kubernetes API on loopback: fabric8's mock server in CRUD mode with the
 * {@code Proxy}, {@code ProviderHealth}, {@code ProxyPool} and {@code TargetPolicy} CRDs installed, which the operator's client uses
 * (plain HTTP), and a {@link KubectlFront} on another port over the same state (HTTPS), which the
 * kubeconfig names. Out of the box {@code kubectl} cannot use the mock (it answers {@code /api}
 * and {@code /apis} with a list of CRDs), so the discovery documents kubectl reads are served as
 * fixed answers.
 * {@link ApiDispatcher} adds what else kubectl relies on: tables from the CRDs' printer columns,
 * OpenAPI v3 and schema checks from their schemas (so {@code kubectl apply} validates, without
 * {@code --validate=false}), the scale subresource (so {@code kubectl scale} works), core Events for {@code kubectl describe}, and watches from a
 * resource version for {@code kubectl get -w}. State lives in memory and ends with the process.
 *
 * <p>Both ports demand the {@link ApiToken} on every request; {@link #client} sends it, and the
 * kubeconfig local mode writes carries it to kubectl.
 *
 * <p>Thread-safe. {@link #close} is idempotent.
 */
final class EmbeddedApiServer implements AutoCloseable {

    private static final List<String> CRDS =
            List.of("crd/proxies.crawl.example.com.yaml", "crd/providerhealths.crawl.example.com.yaml",
                    "crd/proxypools.crawl.example.com.yaml", "crd/targetpolicies.crawl.example.com.yaml");
    /** Secret and Namespace, in CRD form: served to kubectl with schemas, never installed. */
    private static final String CORE_KINDS = "local/core-v1-schemas.yaml";
    /** Held so the level sticks: the mock logs every request at INFO. */
    private static final Logger SERVER_LOG = Logger.getLogger(MockWebServer.class.getName());

    private final KubernetesMockServer server;
    private final ApiDispatcher dispatcher;
    private final LoopbackCertificate certificate;
    private final KubectlFront front;
    private final KubernetesClient client;

    private EmbeddedApiServer(KubernetesMockServer server, ApiDispatcher dispatcher, LoopbackCertificate certificate,
            KubectlFront front, ApiToken token) {
        this.server = server;
        this.dispatcher = dispatcher;
        this.certificate = certificate;
        this.front = front;
        // The namespace the kubeconfig names for kubectl: where the operator keeps what lives in "its own"
        // namespace (the lease state, the discovery clients).
        this.client = server.createClient(b -> b.editOrNewConfig().withOauthToken(token.value())
                .withNamespace(Kubeconfig.NAMESPACE).endConfig());
    }

    /** Starts on two ephemeral loopback ports, both demanding {@code token}, and installs the CRDs. */
    static EmbeddedApiServer start(ApiToken token) {
        SERVER_LOG.setLevel(Level.WARNING);
        Map<ServerRequest, Queue<ServerResponse>> expectations = new ConcurrentHashMap<>();
        ApiDispatcher dispatcher = new ApiDispatcher(new KubernetesMixedDispatcher(expectations), token,
                Clock.systemUTC());
        KubernetesMockServer server = new KubernetesMockServer(new Context(Serialization.jsonMapper()),
                new MockWebServer(), expectations, dispatcher, false);
        server.start(InetAddress.getLoopbackAddress(), 0);
        LoopbackCertificate certificate = LoopbackCertificate.generate();
        EmbeddedApiServer api = new EmbeddedApiServer(server, dispatcher, certificate,
                KubectlFront.start(dispatcher, certificate), token);
        api.serveDiscovery();
        api.installCrds();
        return api;
    }

    /** A client of this server (JDK HTTP client) that sends the token. Closed by {@link #close}. */
    KubernetesClient client() {
        return client;
    }

    /** The base URL for kubectl, e.g. {@code https://127.0.0.1:40123}. */
    String url() {
        return front.url();
    }

    /** The certificate {@link #url} serves, in PEM: what kubectl is to trust. */
    String certificatePem() {
        return certificate.pem();
    }

    @Override
    public void close() {
        front.close();
        client.close();
        server.destroy();
    }

    private void installCrds() {
        var crds = client.apiextensions().v1().customResourceDefinitions();
        List<ServedKind> served = new ArrayList<>();
        for (String crd : CRDS) {
            CustomResourceDefinition item = read(crd).get(0);
            served.addAll(ServedKind.of(item, true));
            crds.resource(item).create();
        }
        read(CORE_KINDS).forEach(kind -> served.addAll(ServedKind.of(kind, false)));
        dispatcher.serve(served);
    }

    private List<CustomResourceDefinition> read(String resource) {
        try (InputStream in = EmbeddedApiServer.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("the jar lacks " + resource);
            }
            return client.load(in).items().stream().map(CustomResourceDefinition.class::cast).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The discovery documents kubectl reads before it acts, answered whatever the query (kubectl
     * adds {@code ?timeout=32s}, or its {@code --request-timeout}).
     */
    private void serveDiscovery() {
        String core = """
                {"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":\
                [{"clientCIDR":"0.0.0.0/0","serverAddress":"%s"}]}""".formatted(front.url().substring("https://".length()));
        String groups = """
                {"kind":"APIGroupList","apiVersion":"v1","groups":[\
                {"name":"crawl.example.com","versions":[{"groupVersion":"crawl.example.com/v1alpha1","version":"v1alpha1"}],\
                "preferredVersion":{"groupVersion":"crawl.example.com/v1alpha1","version":"v1alpha1"}},\
                {"name":"events.k8s.io","versions":[{"groupVersion":"events.k8s.io/v1","version":"v1"}],\
                "preferredVersion":{"groupVersion":"events.k8s.io/v1","version":"v1"}}]}""";
        String coreResources = """
                {"kind":"APIResourceList","apiVersion":"v1","groupVersion":"v1","resources":[\
                {"name":"namespaces","singularName":"namespace","namespaced":false,"kind":"Namespace","verbs":["create","delete","get","list","patch","update","watch"],"shortNames":["ns"]},\
                {"name":"secrets","singularName":"secret","namespaced":true,"kind":"Secret","verbs":["create","delete","get","list","patch","update","watch"]},\
                {"name":"events","singularName":"event","namespaced":true,"kind":"Event","verbs":["get","list"],"shortNames":["ev"]}]}""";
        String eventsResources = """
                {"kind":"APIResourceList","apiVersion":"v1","groupVersion":"events.k8s.io/v1","resources":[\
                {"name":"events","singularName":"event","namespaced":true,"kind":"Event",\
                "verbs":["create","delete","get","list","patch","update","watch"],"shortNames":["ev"]}]}""";
        String crawlResources = """
                {"kind":"APIResourceList","apiVersion":"v1","groupVersion":"crawl.example.com/v1alpha1","resources":[\
                {"name":"proxies","singularName":"proxy","namespaced":true,"kind":"Proxy",\
                "verbs":["get","list","watch","create","update","patch","delete"],"shortNames":["px"]},\
                {"name":"proxies/status","singularName":"","namespaced":true,"kind":"Proxy","verbs":["get","update","patch"]},\
                {"name":"providerhealths","singularName":"providerhealth","namespaced":false,"kind":"ProviderHealth",\
                "verbs":["get","list","watch","create","update","patch","delete"],"shortNames":["ph"]},\
                {"name":"providerhealths/status","singularName":"","namespaced":false,"kind":"ProviderHealth","verbs":["get","update","patch"]},\
                {"name":"proxypools","singularName":"proxypool","namespaced":true,"kind":"ProxyPool",\
                "verbs":["get","list","watch","create","update","patch","delete"],"shortNames":["pool"]},\
                {"name":"proxypools/status","singularName":"","namespaced":true,"kind":"ProxyPool","verbs":["get","update","patch"]},\
                {"name":"proxypools/scale","singularName":"","namespaced":true,"group":"autoscaling","version":"v1",\
                "kind":"Scale","verbs":["get","update","patch"]},\
                {"name":"targetpolicies","singularName":"targetpolicy","namespaced":true,"kind":"TargetPolicy",\
                "verbs":["get","list","watch","create","update","patch","delete"],"shortNames":["tp"]},\
                {"name":"targetpolicies/status","singularName":"","namespaced":true,"kind":"TargetPolicy",\
                "verbs":["get","update","patch"]}]}""";
        Map<String, String> answers = Map.of("/api", core, "/apis", groups, "/api/v1", coreResources,
                "/apis/crawl.example.com/v1alpha1", crawlResources, "/apis/events.k8s.io/v1", eventsResources);
        dispatcher.serveDiscovery(answers);
    }
}
