package com.example.crawl.egress.gc;

import com.example.crawl.egress.provider.ProviderRegistry;
import io.opentelemetry.api.trace.TracerProvider;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;

/**
 * One real {@link Sweep} with minimum age zero, run against a world a test outside this package
 * describes: the crash suite's in-memory API and fake providers. Only credentials Secrets are
 * judged; the pod-password kind is empty.
 */
public final class GcPass {

    /** A credentials Secret as the sweep judges it. */
    public record CredentialsRef(String namespace, String name, String ownerUid, Instant createdAt) { }

    /** What the sweep reads and deletes in the API. */
    public interface World {
        Set<String> liveProxyUids();

        List<CredentialsRef> credentialsSecrets();

        /** Deletes the Secret; true when it existed. */
        boolean deleteSecret(String namespace, String name);
    }

    /** What the pass deleted. */
    public record Deleted(int instances, int secrets) { }

    private GcPass() {
    }

    public static Deleted run(ProviderRegistry providers, World world, Clock clock) {
        Sweep sweep = new Sweep(providers, new Adapter(world), new OrphanRule(Duration.ZERO), clock, GcRecorder.NONE,
                TracerProvider.noop().get("crash-suite"));
        Sweep.Result result = sweep.run(() -> false);
        return new Deleted(result.instancesDeleted(), result.secretsDeleted());
    }

    private record Adapter(World world) implements Cluster {
        @Override
        public Set<String> liveProxyUids() {
            return world.liveProxyUids();
        }

        @Override
        public List<OwnedSecret> secrets(OwnedSecret.Kind kind) {
            if (kind != OwnedSecret.Kind.CREDENTIALS) {
                return List.of();
            }
            return world.credentialsSecrets().stream().map(s -> new OwnedSecret(kind, s.namespace(), s.name(),
                    s.ownerUid(), s.createdAt(), null)).toList();
        }

        @Override
        public Deletion delete(OwnedSecret secret) {
            return world.deleteSecret(secret.namespace(), secret.name()) ? Deletion.DELETED : Deletion.GONE;
        }
    }
}
