package com.example.crawl.egress.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionNames;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceSubresourceScale;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.client.CustomResource;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The CRD files and the Java api types describe the same objects: the same names as the fabric8
 * annotations, and the same fields, JSON types, enum values and defaults as the records.
 */
class CrdDriftTest {

    private static final CrdValidator PROXIES = CrdValidator.load(ProxyFixtures.PROXY_CRD);
    private static final CrdValidator PROVIDER_HEALTHS = CrdValidator.load(ProxyFixtures.PROVIDER_HEALTH_CRD);
    private static final CrdValidator POOLS = CrdValidator.load(ProxyFixtures.POOL_CRD);
    private static final CrdValidator TARGET_POLICIES = CrdValidator.load(ProxyFixtures.TARGET_POLICY_CRD);

    static Stream<Arguments> schemaParts() {
        return Stream.of(
                Arguments.of(ProxySpec.class, PROXIES, "spec"),
                Arguments.of(ProxyStatus.class, PROXIES, "status"),
                Arguments.of(ProviderHealthStatus.class, PROVIDER_HEALTHS, "status"),
                Arguments.of(ProxyPoolSpec.class, POOLS, "spec"),
                Arguments.of(ProxyPoolStatus.class, POOLS, "status"),
                Arguments.of(TargetPolicySpec.class, TARGET_POLICIES, "spec"),
                Arguments.of(TargetPolicyStatus.class, TARGET_POLICIES, "status"));
    }

    @ParameterizedTest(name = "{0} matches .{2} of its CRD")
    @MethodSource("schemaParts")
    void shouldDescribeTheSameFieldsTypesEnumsAndDefaultsAsTheRecord(Class<?> type, CrdValidator crd, String part) {
        JSONSchemaProps schema = crd.schema().getProperties().get(part);
        assertNotNull(schema, () -> part + " is missing from " + crd.crd().getMetadata().getName());

        assertEquals(List.of(), RecordSchemaDrift.between(type, schema, part, crd));
    }

    @Test
    void shouldDeclareNoSpecForProviderHealth() {
        assertEquals(Set.of("apiVersion", "kind", "metadata", "status"),
                PROVIDER_HEALTHS.schema().getProperties().keySet());
    }

    static Stream<Arguments> resources() {
        return Stream.of(
                Arguments.of(Proxy.class, ProxyFixtures.PROXY_CRD),
                Arguments.of(ProviderHealth.class, ProxyFixtures.PROVIDER_HEALTH_CRD),
                Arguments.of(ProxyPool.class, ProxyFixtures.POOL_CRD),
                Arguments.of(TargetPolicy.class, ProxyFixtures.TARGET_POLICY_CRD));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("resources")
    void shouldNameTheResourceAsTheFabric8AnnotationsDo(Class<? extends CustomResource<?, ?>> type, Path file)
            throws ReflectiveOperationException {
        CrdValidator crd = CrdValidator.load(file);
        CustomResourceDefinitionNames names = crd.crd().getSpec().getNames();

        assertEquals(CustomResource.getCRDName(type), crd.crd().getMetadata().getName());
        assertEquals(HasMetadata.getGroup(type), crd.crd().getSpec().getGroup());
        assertEquals(HasMetadata.getKind(type), names.getKind());
        assertEquals(HasMetadata.getPlural(type), names.getPlural());
        assertEquals(HasMetadata.getSingular(type), names.getSingular());
        assertEquals(Arrays.asList(CustomResource.getShortNames(type)), names.getShortNames());
        assertEquals(type.getDeclaredConstructor().newInstance().getScope(), crd.crd().getSpec().getScope());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("resources")
    void shouldServeAndStoreTheAnnotatedVersionWithAStatusSubresource(
            Class<? extends CustomResource<?, ?>> type, Path file) {
        CustomResourceDefinitionVersion version = CrdValidator.load(file).version();

        assertEquals(HasMetadata.getVersion(type), version.getName());
        assertEquals(CustomResource.getServed(type), version.getServed());
        assertEquals(CustomResource.getStorage(type), version.getStorage());
        assertNotNull(version.getSubresources().getStatus(), "status subresource");
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("resources")
    void shouldParseAsACustomResourceDefinitionWithoutBeingToldTheType(Class<?> type, Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            Object parsed = JsonValues.FABRIC8.unmarshal(in);

            assertInstanceOf(CustomResourceDefinition.class, parsed);
        }
    }

    @Test
    void shouldShowTheProxyColumnsTheDesignPromises() {
        List<String> columns = PROXIES.version().getAdditionalPrinterColumns().stream()
                .map(c -> c.getName().toUpperCase() + (c.getPriority() != null && c.getPriority() > 0 ? " wide" : ""))
                .toList();

        assertEquals(List.of("PHASE", "PROVIDER", "IP", "LATENCY", "HEALTHY wide", "AGE"), columns);
    }

    @Test
    void shouldShowTheProviderHealthColumnsTheDesignPromises() {
        List<String> columns = PROVIDER_HEALTHS.version().getAdditionalPrinterColumns().stream()
                .map(c -> c.getName().toUpperCase()).toList();

        assertEquals(List.of("TYPE", "READY", "TARGETS", "LAST CHECK", "AGE"), columns);
    }

    @Test
    void shouldShowThePoolColumnsOfADeployment() {
        List<String> columns = POOLS.version().getAdditionalPrinterColumns().stream()
                .map(c -> c.getName().toUpperCase() + (c.getPriority() != null && c.getPriority() > 0 ? " wide" : ""))
                .toList();

        assertEquals(List.of("DESIRED", "CURRENT", "READY", "UP-TO-DATE", "AVAILABLE wide", "AGE"), columns);
    }

    @Test
    void shouldShowTheTargetPolicyColumnsOfItsLimitsAndWhetherItIsInForce() {
        List<String> columns = TARGET_POLICIES.version().getAdditionalPrinterColumns().stream()
                .map(c -> c.getName().toUpperCase() + (c.getPriority() != null && c.getPriority() > 0 ? " wide" : ""))
                .toList();

        assertEquals(List.of("HOSTS", "MAX", "PER-PROXY", "INTERVAL", "ACCEPTED", "AGE"), columns);
        assertEquals(".status.conditions[?(@.type==\"" + TargetPolicy.ACCEPTED + "\")].status",
                TARGET_POLICIES.version().getAdditionalPrinterColumns().get(4).getJsonPath());
    }

    /** What {@code kubectl scale} and a HorizontalPodAutoscaler read and write. */
    @Test
    void shouldScalePoolsThroughTheirReplicasAndSelectTheirMembersByTheStatusSelector() {
        CustomResourceSubresourceScale scale = POOLS.version().getSubresources().getScale();

        assertEquals(".spec.replicas", scale.getSpecReplicasPath());
        assertEquals(".status.replicas", scale.getStatusReplicasPath());
        assertEquals(".status.selector", scale.getLabelSelectorPath());
        assertEquals("integer", field(POOLS.schema(), scale.getSpecReplicasPath()).getType());
        assertEquals("integer", field(POOLS.schema(), scale.getStatusReplicasPath()).getType());
        assertEquals("string", field(POOLS.schema(), scale.getLabelSelectorPath()).getType());
    }

    static Stream<Arguments> printerColumns() {
        return Stream.of(PROXIES, PROVIDER_HEALTHS, POOLS, TARGET_POLICIES).flatMap(crd -> crd.version().getAdditionalPrinterColumns()
                .stream().map(column -> Arguments.of(crd.crd().getSpec().getNames().getKind(), column, crd)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("printerColumns")
    void shouldPointEveryPrinterColumnAtAFieldOfItsType(String kind, CustomResourceColumnDefinition column,
            CrdValidator crd) {
        if (column.getJsonPath().equals(".metadata.creationTimestamp")) {
            assertEquals("date", column.getType());
            return;
        }
        JSONSchemaProps field = field(crd.schema(), column.getJsonPath());
        if (column.getType().equals("string") && field.getType().equals("array")) {
            // the API server prints a list as its JSON, ["a","b"]: readable for a list of strings only
            assertEquals("string", field.getItems().getSchema().getType(), column::getName);
            return;
        }

        assertEquals(column.getType().equals("date") ? "string" : column.getType(), field.getType());
        if (column.getType().equals("date")) {
            assertEquals("date-time", field.getFormat());
        }
    }

    @Test
    void shouldOfferConditionStatusesExactlyAsTheConditionConstants() {
        JSONSchemaProps status = field(PROXIES.schema(), ".status.conditions[*].status");

        assertEquals(new TreeSet<>(List.of(Condition.TRUE, Condition.FALSE, Condition.UNKNOWN)),
                new TreeSet<>(CrdValidator.enumValues(status)));
    }

    @Test
    void shouldAcceptEveryReasonTheOperatorWrites() {
        for (Reason reason : Reason.values()) {
            Map<String, Object> object = ProxyFixtures.proxy("{provider: p}");
            object.put("status", JsonValues.parse(
                    "{conditions: [{type: Provisioned, status: 'False', reason: " + reason.name() + "}]}"));

            assertEquals(List.of(), PROXIES.validateCreate(object), reason::name);
        }
    }

    /** Why a Java {@code String} may meet an int-or-string quantity: fabric8 reads {@code cpu: 1} as "1". */
    @Test
    void shouldReadIntegerQuantitiesIntoTheStringMaps() {
        KubernetesSpec spec = JsonValues.FABRIC8.unmarshal(
                "{\"resources\": {\"limits\": {\"cpu\": 1, \"memory\": \"256Mi\"}}}", KubernetesSpec.class);

        assertEquals(Map.of("cpu", "1", "memory", "256Mi"), spec.resources().limits());
    }

    /** The schema node at a printer-column style path such as {@code .status.conditions[?(...)].status}. */
    private static JSONSchemaProps field(JSONSchemaProps root, String jsonPath) {
        JSONSchemaProps node = root;
        for (String step : jsonPath.replaceAll("\\[\\?\\(.*?\\)]", "[*]").substring(1).split("\\.")) {
            boolean intoItems = step.endsWith("[*]");
            node = node.getProperties().get(intoItems ? step.substring(0, step.length() - 3) : step);
            assertNotNull(node, () -> jsonPath + " is not in the schema");
            if (intoItems) {
                assertTrue(node.getItems() != null, () -> jsonPath + " indexes a non-array");
                node = node.getItems().getSchema();
            }
        }
        return node;
    }
}
