package com.example.crawl.egress.local;

import com.example.crawl.egress.config.ConfigException;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.config.ProviderConfig;
import com.example.crawl.egress.config.ProvidersConfig;
import com.example.crawl.egress.provider.EgressPolicy;
import com.example.crawl.egress.provider.local.LocalProvider;

import io.fabric8.kubernetes.client.KubernetesClient;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * What {@code --local} adds around the operator, in the order {@link #prepare} sets it up: a lock
 * on the state directory (one local operator per directory), the {@code local} provider (which
 * needs Squid), a sweep of Squid processes an earlier run left behind (after a {@code kill -9}),
 * the loopback probe target, the embedded API server behind a token of its own and a private
 * kubeconfig that carries that token, and a discovery token. {@link #createSamples} adds the sample Proxies and pool once the operator runs; {@link #banner}
 * says what to try.
 *
 * <p>{@link #close} stops every Squid, the API server and the target, and releases the lock. It
 * is idempotent.
 */
public final class LocalMode implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LocalMode.class);
    /** The provider name the samples use and the only provider local mode configures. */
    public static final String PROVIDER = SampleProxies.PROVIDER;

    private final Path stateDir;
    private final FileChannel lockFile;
    private final FileLock lock;
    private final LocalProvider provider;
    private final Optional<LocalTarget> target;
    private final EmbeddedApiServer api;
    private final Path kubeconfig;
    private final String token;

    private LocalMode(Path stateDir, FileChannel lockFile, FileLock lock, LocalProvider provider,
            Optional<LocalTarget> target, EmbeddedApiServer api, Path kubeconfig, String token) {
        this.stateDir = stateDir;
        this.lockFile = lockFile;
        this.lock = lock;
        this.provider = provider;
        this.target = target;
        this.api = api;
        this.kubeconfig = kubeconfig;
        this.token = token;
    }

    /** Local mode cannot start; the message says why in one line. */
    public static final class LocalModeException extends Exception {
        LocalModeException(String message) {
            super(message);
        }
    }

    /**
     * Sets local mode up. On failure nothing it started is left running.
     *
     * @throws LocalModeException with one line: Squid missing, another local operator holding the
     *                            state directory, or the probe target's port taken
     */
    public static LocalMode prepare(OperatorConfig config) throws LocalModeException {
        Path dir = config.localStateDir().toAbsolutePath();
        FileChannel channel = null;
        LocalProvider provider = null;
        LocalTarget target = null;
        try {
            StateDirectory.open(dir);
            channel = FileChannel.open(dir.resolve("lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock = channel.tryLock();
            if (lock == null) {
                throw new LocalModeException("another --local operator is running with state directory " + dir
                        + "; stop it first, or give this one --local-state-dir and other ports");
            }
            if (LocalProvider.findSquid(config.localSquid()).isEmpty()) {
                throw new LocalModeException("--local runs each proxy as a Squid process, and " + config.localSquid()
                        + " is not installed (not on the PATH, not in /usr/sbin); install it, e.g. apt-get install squid");
            }
            URI probeUrl = config.probes().defaultUrl();
            boolean ownTarget = probeUrl.equals(OperatorConfig.LOCAL_PROBE_URL) || config.probes().echo()
                    .filter(e -> e.url().equals(OperatorConfig.LOCAL_ECHO_URL)).isPresent();
            provider = LocalProvider.create(providerConfig(config), policy(config, ownTarget));
            int swept = provider.sweep(); // the embedded API starts empty: nothing an earlier run made has an owner
            if (swept > 0) {
                LOG.atInfo().addKeyValue("instances", swept).log("Removed Squid instances an earlier run left behind");
            }
            target = ownTarget ? serveTarget(OperatorConfig.LOCAL_PROBE_URL) : null;
            ApiToken apiToken = ApiToken.generate();
            EmbeddedApiServer api = EmbeddedApiServer.start(apiToken);
            LOG.atDebug().addKeyValue("url", api.url()).log("Embedded API server started");
            Path kubeconfig = Kubeconfig.write(dir.resolve("kubeconfig"), api.url(), api.certificatePem(), apiToken);
            String token = config.discovery().token().isEmpty() ? newToken() : config.discovery().token();
            return new LocalMode(dir, channel, lock, provider, Optional.ofNullable(target), api, kubeconfig, token);
        } catch (LocalModeException e) {
            cleanUp(provider, target, channel);
            throw e;
        } catch (StateDirectory.Refused e) {
            cleanUp(provider, target, channel);
            throw new LocalModeException(e.getMessage());
        } catch (ConfigException e) {
            cleanUp(provider, target, channel);
            throw new LocalModeException(e.getMessage());
        } catch (IOException | RuntimeException e) {
            cleanUp(provider, target, channel);
            throw new LocalModeException("cannot set up local mode in " + dir + ": " + e.getMessage());
        }
    }

    /** The providers config local mode runs with: one {@code local} provider under the state directory. */
    public static ProvidersConfig providersConfig(OperatorConfig config) {
        return new ProvidersConfig(List.of(providerConfig(config)));
    }

    /**
     * The operator's egress policy, plus exactly one exception on loopback when local mode serves
     * its own probe target: the probes, the egress echo and the README's walkthrough fetch it
     * through the proxies.
     */
    private static EgressPolicy policy(OperatorConfig config, boolean ownTarget) {
        EgressPolicy policy = EgressPolicy.from(config.egress());
        URI url = OperatorConfig.LOCAL_PROBE_URL;
        return ownTarget ? policy.allowing(new EgressPolicy.Destination(url.getHost(), url.getPort())) : policy;
    }

    private static ProviderConfig providerConfig(OperatorConfig config) {
        return new ProviderConfig(PROVIDER, new ProviderConfig.Local(
                config.localStateDir().toAbsolutePath().resolve("instances"), config.localSquid()));
    }

    private static LocalTarget serveTarget(URI url) throws LocalModeException, IOException {
        try {
            return LocalTarget.serve(url);
        } catch (BindException e) {
            throw new LocalModeException("cannot listen on " + url.getHost() + ":" + url.getPort()
                    + " for local mode's probe target: " + e.getMessage() + "; is another operator running?");
        }
    }

    /** The client of the embedded API server. */
    public KubernetesClient client() {
        return api.client();
    }

    /** The {@code local} provider; its factory hands out this one instance. */
    public LocalProvider provider() {
        return provider;
    }

    /** The discovery token: {@code DISCOVERY_TOKEN} if set, else one generated for this run. */
    public String token() {
        return token;
    }

    /** Creates the sample Proxies and the sample pool. */
    public void createSamples() {
        SampleProxies.create(api.client());
        SampleProxies.createPool(api.client());
    }

    /**
     * What to try, printed once at start; the only place the generated discovery token appears.
     * The embedded API's token appears nowhere but in the kubeconfig, whose path this prints.
     */
    public String banner(InetSocketAddress discovery) {
        String base = "http://127.0.0.1:" + discovery.getPort();
        String site = target.map(t -> t.home().toString()).orElse("http://example.com/");
        return String.join("\n",
                "",
                "egress-proxies-operator is running in local mode.",
                "  Kubernetes API (embedded)  " + api.url(),
                "  kubeconfig                 " + kubeconfig,
                "  discovery API              " + base,
                "  discovery token            " + token,
                "  Squid instances            " + stateDir.resolve("instances"),
                "",
                "Try:",
                "  export KUBECONFIG=" + kubeconfig + " TOKEN=" + token,
                "  kubectl get px",
                "  kubectl get pool",
                "  kubectl scale pool/local-pool --replicas=3",
                "  curl -s -H \"Authorization: Bearer $TOKEN\" '" + base + "/v1/proxies?healthy=true'",
                "  curl -s -H \"Authorization: Bearer $TOKEN\" -X POST " + base
                        + "/v1/leases -d '{\"selector\":{\"region\":\"eu-west\"},\"ttlSeconds\":300}'",
                "  curl -x <proxy url from the lease> " + site,
                "",
                "Ctrl-C stops the operator and every Squid it started.",
                "");
    }

    @Override
    public void close() {
        provider.close();
        api.close();
        target.ifPresent(LocalTarget::close);
        release(lock, lockFile);
    }

    private static void cleanUp(LocalProvider provider, LocalTarget target, FileChannel channel) {
        if (provider != null) {
            provider.close();
        }
        if (target != null) {
            target.close();
        }
        release(null, channel);
    }

    private static void release(FileLock lock, FileChannel channel) {
        try {
            if (lock != null && lock.isValid()) {
                lock.release();
            }
            if (channel != null) {
                channel.close();
            }
        } catch (IOException e) {
            // the lock dies with the process anyway
        }
    }

    private static String newToken() {
        byte[] bits = new byte[24];
        new SecureRandom().nextBytes(bits);
        return HexFormat.of().formatHex(bits);
    }
}
