package com.example.crawl.egress.tracing;

import com.example.crawl.egress.config.ConfigException;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.spi.ConfigurationException;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.resources.Resource;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The only class that touches the OpenTelemetry SDK: the JVM loads it, and through it the SDK,
 * only when {@link Telemetry#start} finds tracing on.
 *
 * <p>The SDK's autoconfiguration builds the tracer provider, the sampler, the batch processor and
 * the OTLP exporter from the {@code OTEL_*} variables {@code config} captured, handed to it as
 * overrides (autoconfiguration also reads the process environment and {@code otel.*} system
 * properties itself; the captured values win). On top of them this class fixes what the operator
 * does not offer: no metric or log export (metrics are Prometheus', logs go to stdout) and W3C
 * {@code traceparent} as the only propagation format. It defaults the protocol to
 * {@code http/protobuf}, the one the JDK sender speaks, and the service name to
 * {@value #SERVICE_NAME}. No shutdown hook and no global instance: {@code Main} closes it.
 */
final class SdkTelemetry {

    static final String SERVICE_NAME = "egress-proxies-operator";
    private static final AttributeKey<String> SERVICE_NAME_KEY = AttributeKey.stringKey("service.name");
    private static final long SHUTDOWN_SECONDS = 10;
    private static final Logger LOG = LoggerFactory.getLogger(SdkTelemetry.class);

    private SdkTelemetry() {
    }

    static Telemetry start(Map<String, String> variables) throws ConfigException {
        OpenTelemetrySdk sdk;
        try {
            sdk = AutoConfiguredOpenTelemetrySdk.builder()
                    .addPropertiesCustomizer(config -> properties(variables))
                    .addResourceCustomizer((resource, config) -> named(resource))
                    .disableShutdownHook()
                    .build()
                    .getOpenTelemetrySdk();
        } catch (ConfigurationException e) {
            // Some refusals ("Unexpected configuration error") say what was wrong only in their cause.
            String cause = e.getCause() == null || e.getCause().getMessage() == null ? ""
                    : " (" + e.getCause().getMessage() + ")";
            throw new ConfigException("OpenTelemetry cannot be configured from the OTEL_* variables: "
                    + e.getMessage() + cause, e);
        }
        LOG.atInfo().addKeyValue("variables", List.copyOf(new TreeSet<>(variables.keySet())))
                .log("Tracing with the OpenTelemetry SDK");
        return new Telemetry(sdk, true, () -> shutdown(sdk));
    }

    /** The autoconfiguration properties: the variables under their property names, then the fixed ones. */
    static Map<String, String> properties(Map<String, String> variables) {
        Map<String, String> out = new HashMap<>();
        variables.forEach((name, value) -> out.put(name.toLowerCase(Locale.ROOT).replace('_', '.'), value));
        out.putIfAbsent("otel.exporter.otlp.protocol", "http/protobuf");
        out.put("otel.metrics.exporter", "none");
        out.put("otel.logs.exporter", "none");
        out.put("otel.propagators", "tracecontext");
        return out;
    }

    /** The resource as configured, named {@value #SERVICE_NAME} unless the variables name it. */
    private static Resource named(Resource resource) {
        String name = resource.getAttribute(SERVICE_NAME_KEY);
        return name == null || name.startsWith("unknown_service")
                ? resource.merge(Resource.builder().put(SERVICE_NAME_KEY, SERVICE_NAME).build())
                : resource;
    }

    private static void shutdown(OpenTelemetrySdk sdk) {
        CompletableResultCode done = sdk.shutdown().join(SHUTDOWN_SECONDS, TimeUnit.SECONDS);
        if (!done.isSuccess()) {
            LOG.atWarn().addKeyValue("timeout", SHUTDOWN_SECONDS + "s")
                    .log("Tracing stopped without exporting every span");
        }
    }
}
