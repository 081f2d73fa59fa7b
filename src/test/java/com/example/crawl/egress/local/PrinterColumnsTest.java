package com.example.crawl.egress.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/** Tables from the CRDs' printer columns, cell by cell, as the API server's convertor makes them. */
class PrinterColumnsTest {

    static final String KUBECTL_ACCEPT = "application/json;as=Table;v=v1;g=meta.k8s.io,"
            + "application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Instant NOW = Instant.parse("2026-11-29T10:00:00Z");

    @Test
    void shouldWriteAgesAsKubernetesShortHumanDurationDoes() {
        List<String> ages = new ArrayList<>();
        for (Duration d : List.of(Duration.ofMillis(-1999), Duration.ofSeconds(-2), Duration.ZERO, Duration.ofSeconds(59),
                Duration.ofSeconds(60), Duration.ofMinutes(59).plusSeconds(59), Duration.ofHours(1), Duration.ofHours(23),
                Duration.ofHours(24), Duration.ofDays(364), Duration.ofDays(365), Duration.ofDays(800))) {
            ages.add(PrinterColumns.shortHumanDuration(d));
        }
        assertEquals(List.of("0s", "<invalid>", "0s", "59s", "1m", "59m", "1h", "23h", "1d", "364d", "1y", "2y"), ages);
        assertEquals("12s", PrinterColumns.age("2026-11-29T09:59:48Z", NOW));
        assertEquals("12s", PrinterColumns.age("2026-11-29T10:59:47.5+01:00", NOW), "offsets and fractions parse");
        assertEquals("<invalid>", PrinterColumns.age("yesterday", NOW));
        assertEquals("<unknown>", PrinterColumns.age("", NOW), "an empty time is the zero time");
    }

    @Test
    void shouldTypeEachCellByItsColumnAndLeaveAMismatchEmpty() throws IOException {
        assertEquals("\"42\"", cell("string", "42"), "a string column prints any value");
        assertEquals("\"up\"", cell("string", "\"up\""));
        assertEquals("42", cell("integer", "42.9"));
        assertEquals("null", cell("integer", "\"42\""));
        assertEquals("1.5", cell("number", "1.5"));
        assertEquals("true", cell("boolean", "true"));
        assertEquals("null", cell("boolean", "\"true\""));
        assertEquals("null", cell("date", "12"));
        assertEquals("null", PrinterColumns.cell("string", null, NOW).toString(), "nothing found: no cell value");
    }

    @Test
    void shouldMakeTheProviderHealthTableKubectlPrints() throws IOException {
        PrinterColumns columns = only("crd/providerhealths.crawl.example.com.yaml");
        JsonNode list = JSON.readTree("""
                {"kind":"ProviderHealthList","apiVersion":"crawl.example.com/v1alpha1","metadata":{"resourceVersion":"7"},
                 "items":[{"apiVersion":"crawl.example.com/v1alpha1","kind":"ProviderHealth",
                   "metadata":{"name":"local","creationTimestamp":"2026-11-26T09:00:00Z","resourceVersion":"6","uid":"u1"},
                   "status":{"type":"local","ready":true,"targetsReady":"1/1","lastCheckTime":"2026-11-29T09:59:48Z",
                     "targets":[{"name":"squid","ready":true}]}},
                  {"apiVersion":"crawl.example.com/v1alpha1","kind":"ProviderHealth",
                   "metadata":{"name":"new","creationTimestamp":"2026-11-29T09:59:59Z"}}]}""");

        ObjectNode table = columns.table(list, NOW, PrinterColumns.Include.METADATA, "v1");

        assertEquals("Table", table.get("kind").asString());
        assertEquals("meta.k8s.io/v1", table.get("apiVersion").asString());
        assertEquals("7", table.at("/metadata/resourceVersion").asString());
        List<String> headers = new ArrayList<>();
        table.get("columnDefinitions").forEach(c -> headers.add(c.get("name").asString() + ":" + c.get("type").asString()));
        assertEquals(List.of("Name:string", "Type:string", "Ready:boolean", "Targets:string", "Last Check:date",
                "Age:date"), headers);
        assertEquals("name", table.at("/columnDefinitions/0/format").asString());
        assertEquals(JSON.readTree("[\"local\",\"local\",true,\"1/1\",\"12s\",\"3d\"]"), table.at("/rows/0/cells"));
        assertEquals(JSON.readTree("[\"new\",null,null,null,null,\"1s\"]"), table.at("/rows/1/cells"),
                "a new object without status");
        JsonNode object = table.at("/rows/0/object");
        assertEquals("PartialObjectMetadata", object.get("kind").asString());
        assertEquals("meta.k8s.io/v1", object.get("apiVersion").asString());
        assertEquals("u1", object.at("/metadata/uid").asString());
        assertFalse(object.has("status"), "metadata only");

        assertEquals("local", columns.table(list.get("items").get(0), NOW, PrinterColumns.Include.OBJECT, "v1beta1")
                .at("/rows/0/object/status/type").asString(), "one object, includeObject=Object");
        assertFalse(columns.table(list, NOW, PrinterColumns.Include.NONE, "v1").at("/rows/0").has("object"));
    }

    @Test
    void shouldFindTheProxysHealthyConditionThroughItsFilterAndKeepItsPriority() throws IOException {
        PrinterColumns columns = only("crd/proxies.crawl.example.com.yaml");
        JsonNode proxy = JSON.readTree("""
                {"metadata":{"name":"eu","namespace":"crawl","creationTimestamp":"2026-11-29T09:00:00Z"},
                 "spec":{"provider":"local"},
                 "status":{"phase":"Ready","ip":"127.0.0.2","latencyMillis":12,
                   "conditions":[{"type":"Provisioned","status":"True"},{"type":"Healthy","status":"False"}]}}""");

        ObjectNode table = columns.table(proxy, NOW, PrinterColumns.Include.METADATA, "v1");

        assertEquals("[\"eu\",\"Ready\",\"local\",\"127.0.0.2\",12,\"False\",\"1h\"]",
                table.at("/rows/0/cells").toString());
        assertEquals(1, table.at("/columnDefinitions/5/priority").asInt(), "Healthy shows with -o wide");
        assertEquals("Latency of the last status-affecting probe, in milliseconds.",
                table.at("/columnDefinitions/4/description").asString());
    }

    @Test
    void shouldRefuseAJsonPathBeyondTheSimpleForms() throws IOException {
        String crd = Files.readString(Path.of("crd/providerhealths.crawl.example.com.yaml"))
                .replace("jsonPath: .status.targetsReady", "jsonPath: .status.targets[*].name");
        CustomResourceDefinition parsed = new KubernetesSerialization().unmarshal(crd, CustomResourceDefinition.class);

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PrinterColumns.of(parsed));
        assertTrue(e.getMessage().contains(".status.targets[*].name"), e.getMessage());
    }

    @Test
    void shouldAnswerWithATableOnlyWhenTheAcceptHeaderAsksForOne() {
        assertEquals(Optional.of("v1"), ApiDispatcher.tableVersion(KUBECTL_ACCEPT));
        assertEquals(Optional.of("v1beta1"), ApiDispatcher.tableVersion("application/json;as=Table;v=v1beta1;g=meta.k8s.io"));
        assertEquals(Optional.empty(), ApiDispatcher.tableVersion("application/json"));
        assertEquals(Optional.empty(), ApiDispatcher.tableVersion(null));
        assertEquals(Optional.empty(), ApiDispatcher.tableVersion("application/json;as=Table;v=v1;g=example.com"));
        assertEquals(Optional.empty(), ApiDispatcher.tableVersion("application/json;as=Table;v=v2;g=meta.k8s.io"));
    }

    private static String cell(String type, String json) throws IOException {
        return PrinterColumns.cell(type, JSON.readTree(json), NOW).toString();
    }

    private static PrinterColumns only(String crdFile) throws IOException {
        try (InputStream in = Files.newInputStream(Path.of(crdFile))) {
            List<PrinterColumns> all = PrinterColumns.of(new KubernetesSerialization().unmarshal(in,
                    CustomResourceDefinition.class));
            assertEquals(1, all.size());
            return all.getFirst();
        }
    }
}
