package com.example.crawl.egress.health;

import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.tracing.ActiveSpan;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;

/**
 * The span of one health probe ({@code --trace-health-probes}): the root of a trace of its own,
 * naming the proxy and the target, and the probe's result. Nothing of it reaches the proxy.
 */
final class ProbeSpans {

    private ProbeSpans() {
    }

    static ActiveSpan start(Tracer tracer, ProxyKey key, ProbeTarget target) {
        return ActiveSpan.start(tracer.spanBuilder(HealthEngine.SPAN).setNoParent().setSpanKind(SpanKind.CLIENT)
                .setAttribute("proxy.namespace", key.namespace()).setAttribute("proxy.name", key.name())
                .setAttribute("server.address", target.proxyHost()).setAttribute("server.port", target.proxyPort())
                .setAttribute("probe.target", target.url().getHost() + ":" + target.targetPort()));
    }

    static void record(ActiveSpan span, ProbeResult result) {
        switch (result) {
            case ProbeResult.Success ok -> span.set("probe.result", "Success").set("probe.status_code", ok.status());
            case ProbeResult.Failure f -> span.set("probe.result", f.reason().name())
                    .failed(f.reason().name(), f.message());
        }
    }
}
