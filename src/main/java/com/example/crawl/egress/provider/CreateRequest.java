package com.example.crawl.egress.provider;

import com.example.crawl.egress.api.GcpSpec;
import com.example.crawl.egress.api.InstanceName;
import com.example.crawl.egress.api.KubernetesSpec;
import com.example.crawl.egress.api.KvmSpec;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyCredentials;
import com.example.crawl.egress.api.ProxySpec;
import java.util.Objects;

/**
 * Everything a provider needs to make one Proxy's instance. Only the block for the provider's
 * own type is read; a provider whose required block is missing fails
 * {@link ProviderException.Permanent} naming it.
 *
 * @param name       the instance name, {@code api.InstanceName.fromUid(ownerUid)}
 * @param ownerUid   UID of the Proxy, stored on the instance for garbage collection
 * @param namespace  the Proxy's namespace
 * @param proxyName  the Proxy's name, for labels and descriptions that help a human
 * @param port       the port Squid listens on
 * @param cloudInit  the resolved cloud-init user data (inline or read from its Secret), or null;
 *                   it routinely carries credentials, so {@link #toString()} prints only its length
 * @param credentials what the proxy must demand from its clients; the provider writes them into
 *                   Squid's password file ({@link PasswordFile}), hashed
 * @param gcp        the Proxy's {@code spec.gcp}, or null
 * @param kvm        the Proxy's {@code spec.kvm}, or null
 * @param kubernetes the Proxy's {@code spec.kubernetes}, or null
 */
public record CreateRequest(
        String name, String ownerUid, String namespace, String proxyName, int port, String cloudInit,
        ProxyCredentials credentials, GcpSpec gcp, KvmSpec kvm, KubernetesSpec kubernetes) {

    public CreateRequest {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(ownerUid, "ownerUid");
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(proxyName, "proxyName");
        Objects.requireNonNull(credentials, "credentials");
    }

    /**
     * The request for {@code proxy}'s instance.
     *
     * @param cloudInit   the user data resolved from {@code spec.cloudInit}, or null
     * @param credentials the Proxy's credentials, from its Secret
     */
    public static CreateRequest of(Proxy proxy, String cloudInit, ProxyCredentials credentials) {
        String uid = proxy.getMetadata().getUid();
        ProxySpec spec = proxy.getSpec();
        return new CreateRequest(InstanceName.fromUid(uid), uid, proxy.getMetadata().getNamespace(),
                proxy.getMetadata().getName(), spec.port(), cloudInit, credentials, spec.gcp(), spec.kvm(),
                spec.kubernetes());
    }

    /** Never prints the cloud-init content (only its length) nor the password. */
    @Override
    public String toString() {
        String userData = cloudInit == null ? "null" : "<" + cloudInit.length() + " chars>";
        return "CreateRequest[name=" + name + ", ownerUid=" + ownerUid + ", namespace=" + namespace
                + ", proxyName=" + proxyName + ", port=" + port + ", cloudInit=" + userData
                + ", credentials=" + credentials + ", gcp=" + gcp + ", kvm=" + kvm + ", kubernetes=" + kubernetes + "]";
    }
}
