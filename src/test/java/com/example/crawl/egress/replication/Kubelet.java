package com.example.crawl.egress.replication;

import com.example.crawl.egress.api.Proxy;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * The kubelet the mock API server lacks, for the {@code kubernetes} provider's Squid pods: every
 * 100 ms it reports each operator-managed pod without a phase as {@code Running} at
 * {@code 127.0.0.1}, where the test's real Squid listens on the port the Proxy asks for. So a pool
 * member becomes Ready through the operator's own probes, as its pod would in a cluster.
 *
 * <p>Thread-safe; {@link #close} stops it and is idempotent.
 */
final class Kubelet implements AutoCloseable {

    private static final Duration POLL = Duration.ofMillis(100);

    private final KubernetesClient kube;
    private final Thread thread;
    private volatile boolean closed;

    private Kubelet(KubernetesClient kube) {
        this.kube = kube;
        this.thread = Thread.ofPlatform().daemon().name("kubelet").unstarted(this::run);
    }

    static Kubelet start(KubernetesClient kube) {
        Kubelet k = new Kubelet(kube);
        k.thread.start();
        return k;
    }

    private void run() {
        while (!closed) {
            try {
                for (Pod pod : kube.pods().inAnyNamespace().withLabel(Proxy.MANAGED_LABEL, "true").list().getItems()) {
                    if (pod.getStatus() == null || pod.getStatus().getPhase() == null) {
                        pod.setStatus(new PodStatusBuilder().withPhase("Running").withPodIP("127.0.0.1").build());
                        kube.pods().inNamespace(pod.getMetadata().getNamespace()).resource(pod).updateStatus();
                    }
                }
            } catch (KubernetesClientException e) {
                // a pod deleted or changed between the list and the write: the next round sees it again
            }
            LockSupport.parkNanos(POLL.toNanos());
        }
    }

    @Override
    public void close() throws InterruptedException {
        closed = true;
        thread.join(Duration.ofSeconds(5).toMillis());
    }
}
