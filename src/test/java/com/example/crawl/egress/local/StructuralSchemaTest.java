package com.example.crawl.egress.local;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The Proxy CRD's own schema, applied to writes as the API server applies it. */
class StructuralSchemaTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final StructuralSchema schema = proxySchema();

    @Test
    void shouldFindUnknownFieldsAtAnyDepthButNotInMetadataOrMaps() {
        JsonNode proxy = JSON.readTree("""
                {"apiVersion":"crawl.example.com/v1alpha1","kind":"Proxy","colour":1,
                 "metadata":{"name":"p","labels":{"a":"b"},"whatever":1},
                 "spec":{"mode":"External","tls":true,"attributes":{"any-key":"v"},
                   "endpoint":{"host":"h","port":1,"credentialsSecretRef":{"name":"s","extra":1}}},
                 "status":{"conditions":[{"type":"Healthy","status":"True","severity":"x"}]}}""");

        StructuralSchema.Problems problems = schema.check(proxy, false);

        assertEquals(List.of("colour", "spec.tls", "spec.endpoint.credentialsSecretRef.extra",
                "status.conditions[0].severity"), problems.unknown());
        assertEquals(List.of(), problems.invalid());
    }

    @Test
    void shouldRefuseWrongTypesAndValuesOutsideTheEnumInTheApiServersWords() {
        JsonNode proxy = JSON.readTree("""
                {"spec":{"mode":"Sometimes","maxLeases":"many","port":1.5,"attributes":{"k":7}}}""");

        List<StructuralSchema.Invalid> invalid = schema.check(proxy, false).invalid();

        assertEquals(List.of(
                new StructuralSchema.Invalid("spec.mode", "FieldValueNotSupported",
                        "Unsupported value: \"Sometimes\": supported values: \"Managed\", \"External\""),
                new StructuralSchema.Invalid("spec.maxLeases", "FieldValueTypeInvalid",
                        "Invalid value: \"string\": spec.maxLeases in body must be of type integer: \"string\""),
                new StructuralSchema.Invalid("spec.port", "FieldValueTypeInvalid",
                        "Invalid value: \"number\": spec.port in body must be of type integer: \"number\""),
                new StructuralSchema.Invalid("spec.attributes.k", "FieldValueTypeInvalid",
                        "Invalid value: \"integer\": spec.attributes.k in body must be of type string: \"integer\"")),
                invalid);
    }

    @Test
    void shouldRequireSpecOfAWholeObjectButNotOfAMergePatchWhoseNullsDelete() {
        assertEquals(List.of(new StructuralSchema.Invalid("spec", "FieldValueRequired", "Required value")),
                schema.check(JSON.readTree("{\"metadata\":{\"name\":\"p\"}}"), false).invalid());

        StructuralSchema.Problems patch = schema.check(JSON.readTree("{\"spec\":{\"maxLeases\":null}}"), true);
        assertEquals(List.of(), patch.invalid());
        assertEquals(List.of(), patch.unknown());
    }

    @Test
    void shouldTakeIntOrStringQuantitiesAsEither() {
        JsonNode proxy = JSON.readTree("""
                {"spec":{"kubernetes":{"resources":{"requests":{"cpu":1,"memory":"64Mi","gpu":true}}}}}""");

        List<StructuralSchema.Invalid> invalid = schema.check(proxy, true).invalid();

        assertEquals(List.of("spec.kubernetes.resources.requests.gpu"), invalid.stream().map(StructuralSchema.Invalid::field).toList());
    }

    @Test
    void shouldPruneOnlyWhatTheSchemaDoesNotDeclare() {
        JsonNode proxy = JSON.readTree("""
                {"metadata":{"name":"p","x":1},"spec":{"mode":"External","tls":true,"attributes":{"a":"b"}},"extra":[]}""");

        schema.prune(proxy);

        assertEquals(JSON.readTree("""
                {"metadata":{"name":"p","x":1},"spec":{"mode":"External","attributes":{"a":"b"}}}"""), proxy);
    }

    static CustomResourceDefinition crd(String file) {
        try {
            return new KubernetesSerialization().unmarshal(Files.readString(Path.of(file)), CustomResourceDefinition.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static StructuralSchema proxySchema() {
        return ServedKind.of(crd("crd/proxies.crawl.example.com.yaml"), false).getFirst().schema();
    }
}
