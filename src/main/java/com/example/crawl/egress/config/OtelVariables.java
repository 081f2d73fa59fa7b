package com.example.crawl.egress.config;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads the {@code OTEL_*} environment variables into {@link OperatorConfig.Tracing}: whether
 * they ask for the OpenTelemetry SDK, and the variables themselves for the SDK's
 * autoconfiguration. Refuses, naming the variable, what this build cannot serve, so that a
 * mistyped exporter fails the start instead of silently tracing nowhere.
 *
 * <p>Tracing is on when {@code OTEL_EXPORTER_OTLP_ENDPOINT},
 * {@code OTEL_EXPORTER_OTLP_TRACES_ENDPOINT} or {@code OTEL_TRACES_EXPORTER} is set, unless
 * {@code OTEL_SDK_DISABLED=true} or {@code OTEL_TRACES_EXPORTER=none}. Other variables alone
 * (a service name, a sampler) configure tracing but do not turn it on.
 */
final class OtelVariables {

    static final String PREFIX = "OTEL_";
    static final String SDK_DISABLED = "OTEL_SDK_DISABLED";
    static final String TRACES_EXPORTER = "OTEL_TRACES_EXPORTER";
    static final String ENDPOINT = "OTEL_EXPORTER_OTLP_ENDPOINT";
    static final String TRACES_ENDPOINT = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT";
    static final String PROTOCOL = "OTEL_EXPORTER_OTLP_PROTOCOL";
    static final String TRACES_PROTOCOL = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL";

    /** The only protocol the JDK sender speaks. */
    static final String HTTP_PROTOBUF = "http/protobuf";

    private OtelVariables() {
    }

    static OperatorConfig.Tracing parse(Map<String, String> env) throws ConfigException {
        Map<String, String> otel = new TreeMap<>();
        env.forEach((name, value) -> {
            if (name.startsWith(PREFIX)) {
                otel.put(name, value);
            }
        });
        String disabled = value(otel, SDK_DISABLED);
        if (!disabled.isEmpty() && !disabled.equals("true") && !disabled.equals("false")) {
            throw invalid(SDK_DISABLED, otel.get(SDK_DISABLED), "expected true or false");
        }
        String exporter = value(otel, TRACES_EXPORTER);
        boolean asked = !exporter.isEmpty() || !value(otel, ENDPOINT).isEmpty() || !value(otel, TRACES_ENDPOINT).isEmpty();
        boolean enabled = asked && !disabled.equals("true") && !exporter.equals("none");
        if (enabled) {
            if (!exporter.isEmpty() && !exporter.equals("otlp")) {
                throw invalid(TRACES_EXPORTER, otel.get(TRACES_EXPORTER),
                        "expected otlp or none (this build ships only the OTLP exporter)");
            }
            checkProtocol(otel, PROTOCOL);
            checkProtocol(otel, TRACES_PROTOCOL);
        }
        return new OperatorConfig.Tracing(enabled, otel);
    }

    private static void checkProtocol(Map<String, String> otel, String name) throws ConfigException {
        String protocol = value(otel, name);
        if (!protocol.isEmpty() && !protocol.equals(HTTP_PROTOBUF)) {
            throw invalid(name, otel.get(name), "expected " + HTTP_PROTOBUF
                    + " (this build exports over HTTP with the JDK client; it has no gRPC sender)");
        }
    }

    /** The variable's value, trimmed and lower-cased; empty when unset. */
    private static String value(Map<String, String> otel, String name) {
        return otel.getOrDefault(name, "").strip().toLowerCase(Locale.ROOT);
    }

    private static ConfigException invalid(String name, String value, String expected) {
        return new ConfigException("invalid value \"" + value + "\" for environment variable " + name + ": " + expected);
    }
}
