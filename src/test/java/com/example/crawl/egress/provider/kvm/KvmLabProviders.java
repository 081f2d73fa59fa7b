package com.example.crawl.egress.provider.kvm;

import com.example.crawl.egress.KvmLab;
import com.example.crawl.egress.config.ConfigException;
import com.example.crawl.egress.config.ProviderConfig;
import com.example.crawl.egress.provider.EgressPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/** A {@link KvmProvider} on {@link KvmLab}'s sshd, for tests outside this package (the control loop's). */
public final class KvmLabProviders {

    /** The host name Proxies give in {@code spec.kvm.host}. */
    public static final String HOST = "lab";

    private KvmLabProviders() {
    }

    /**
     * A provider of cluster {@code cluster} with the lab as its one host, TCG pinned (see
     * {@code KvmProviderIT}); writes the lab's known_hosts line into {@code dir}.
     */
    public static KvmProvider create(KvmLab lab, Path dir, String cluster) throws IOException, ConfigException {
        Path knownHosts = Files.writeString(dir.resolve("lab_known_hosts"), lab.knownHostsLine() + "\n");
        ProviderConfig.KvmHost host = new ProviderConfig.KvmHost(HOST, "127.0.0.1", lab.sshPort(), lab.sshUser(),
                lab.privateKeyFile(), knownHosts, KvmLab.LIBVIRT_SOCKET);
        ProviderConfig.Kvm settings = new ProviderConfig.Kvm(List.of(host), KvmLab.POOL);
        return new KvmProvider(settings, HostPool.create("kvm-lab", settings.hosts(), Clock.systemUTC()), cluster,
                EgressPolicy.DEFAULT, Clock.systemUTC(), new KvmProvider.Tuning(Duration.ofSeconds(30),
                        Duration.ofSeconds(60), Duration.ofSeconds(120), DomainXml.Accel.qemu));
    }
}
