package com.example.crawl.egress.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** When the {@code OTEL_*} variables turn tracing on, what they refuse, and what reaches the SDK. */
class OtelVariablesTest {

    private static OperatorConfig.Tracing tracing(String... pairs) throws ConfigException {
        Map<String, String> env = new HashMap<>(Map.of("DISCOVERY_TOKEN", "t", "HOME", "/home/op"));
        for (int i = 0; i < pairs.length; i += 2) {
            env.put(pairs[i], pairs[i + 1]);
        }
        return OperatorConfig.parse(List.of(), env).tracing();
    }

    @Test
    void shouldStayOffWithoutAnyOtelVariable() throws ConfigException {
        OperatorConfig.Tracing t = tracing();
        assertFalse(t.enabled());
        assertEquals(Map.of(), t.variables());
    }

    @ParameterizedTest(name = "{0}={1} and {2}={3}: on={4}")
    @CsvSource({
        "OTEL_EXPORTER_OTLP_ENDPOINT, http://collector:4318, OTEL_SERVICE_NAME, ops, true",
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, http://collector:4318/v1/traces, OTEL_SERVICE_NAME, ops, true",
        "OTEL_TRACES_EXPORTER, otlp, OTEL_SERVICE_NAME, ops, true",
        "OTEL_TRACES_EXPORTER, OTLP, OTEL_SERVICE_NAME, ops, true",
        "OTEL_SERVICE_NAME, ops, OTEL_TRACES_SAMPLER, always_on, false",
        "OTEL_EXPORTER_OTLP_ENDPOINT, http://collector:4318, OTEL_SDK_DISABLED, true, false",
        "OTEL_EXPORTER_OTLP_ENDPOINT, http://collector:4318, OTEL_SDK_DISABLED, TRUE, false",
        "OTEL_EXPORTER_OTLP_ENDPOINT, http://collector:4318, OTEL_SDK_DISABLED, false, true",
        "OTEL_EXPORTER_OTLP_ENDPOINT, http://collector:4318, OTEL_TRACES_EXPORTER, none, false",
        "OTEL_EXPORTER_OTLP_ENDPOINT, '', OTEL_SERVICE_NAME, ops, false",
    })
    void shouldTurnTracingOnOnlyWhenAnExporterOrEndpointAsksAndNothingForbids(String a, String av, String b,
            String bv, boolean on) throws ConfigException {
        assertEquals(on, tracing(a, av, b, bv).enabled());
    }

    @Test
    void shouldCaptureEveryOtelVariableAndNothingElse() throws ConfigException {
        OperatorConfig.Tracing t = tracing("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318", "OTEL_BSP_SCHEDULE_DELAY", "200",
                "OTEL_EXPORTER_OTLP_HEADERS", "authorization=Bearer s3cr3t");
        assertEquals(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318", "OTEL_BSP_SCHEDULE_DELAY", "200",
                "OTEL_EXPORTER_OTLP_HEADERS", "authorization=Bearer s3cr3t"), t.variables());
        assertFalse(t.toString().contains("s3cr3t"), t.toString());
        assertTrue(t.toString().contains("OTEL_EXPORTER_OTLP_HEADERS"), t.toString());
    }

    @Test
    void shouldRefuseAnExporterThisBuildDoesNotShip() {
        ConfigException e = assertThrows(ConfigException.class, () -> tracing("OTEL_TRACES_EXPORTER", "console"));
        assertEquals("invalid value \"console\" for environment variable OTEL_TRACES_EXPORTER: expected otlp or none "
                + "(this build ships only the OTLP exporter)", e.getMessage());
    }

    @Test
    void shouldRefuseGrpcBecauseOnlyTheJdkHttpSenderIsShipped() {
        for (String name : List.of("OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")) {
            ConfigException e = assertThrows(ConfigException.class,
                    () -> tracing("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4317", name, "grpc"));
            assertTrue(e.getMessage().startsWith("invalid value \"grpc\" for environment variable " + name
                    + ": expected http/protobuf"), e.getMessage());
        }
    }

    @Test
    void shouldNotJudgeTheSettingsOfTracingThatIsOff() throws ConfigException {
        assertFalse(tracing("OTEL_SDK_DISABLED", "true", "OTEL_TRACES_EXPORTER", "console").enabled());
        assertFalse(tracing("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc").enabled());
    }

    @Test
    void shouldRefuseASdkDisabledValueThatIsNeitherTrueNorFalse() {
        ConfigException e = assertThrows(ConfigException.class, () -> tracing("OTEL_SDK_DISABLED", "yes"));
        assertEquals("invalid value \"yes\" for environment variable OTEL_SDK_DISABLED: expected true or false",
                e.getMessage());
    }
}
