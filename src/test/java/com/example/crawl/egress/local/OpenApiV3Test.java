package com.example.crawl.egress.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * What kubectl reads in the OpenAPI v3 documents: the group versions in the root, and per kind a
 * PATCH that names fieldValidation (so kubectl leaves validation to the server) and offers no
 * strategic merge patch, and the schema derived from the CRD.
 */
class OpenApiV3Test {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final OpenApiV3 openApi = new OpenApiV3(ServedKind.of(
            StructuralSchemaTest.crd("crd/proxies.crawl.example.com.yaml"), true));

    @Test
    void shouldListEachGroupVersionWithAHashedUrl() {
        JsonNode root = JSON.readTree(openApi.get("/openapi/v3").orElseThrow());

        String url = root.at("/paths/apis~1crawl.example.com~1v1alpha1/serverRelativeURL").asString();
        assertTrue(url.matches("/openapi/v3/apis/crawl\\.example\\.com/v1alpha1\\?hash=[0-9A-F]{128}"), url);
        assertTrue(openApi.get(url.substring(0, url.indexOf('?'))).isPresent());
        assertTrue(openApi.get("/openapi/v3/apis/other.example.com/v1").isEmpty());
    }

    @Test
    void shouldOfferFieldValidationOnPatchAndNoStrategicMergePatch() {
        JsonNode patch = document().at("/paths/~1apis~1crawl.example.com~1v1alpha1~1namespaces~1{namespace}~1proxies~1{name}/patch");

        assertEquals(JSON.readTree("{\"group\":\"crawl.example.com\",\"kind\":\"Proxy\",\"version\":\"v1alpha1\"}"),
                patch.get("x-kubernetes-group-version-kind"));
        assertTrue(patch.get("parameters").valueStream()
                .anyMatch(p -> p.get("name").asString().equals("fieldValidation") && p.get("in").asString().equals("query")));
        List<String> types = new ArrayList<>(patch.at("/requestBody/content").propertyNames());
        assertEquals(List.of("application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml"), types);
    }

    @Test
    void shouldServeTheCrdsSchemaTaggedWithItsKind() {
        JsonNode schema = document().at("/components/schemas/com.example.crawl.v1alpha1.Proxy");

        assertEquals("Proxy", schema.at("/x-kubernetes-group-version-kind/0/kind").asString());
        assertEquals("integer", schema.at("/properties/spec/properties/maxLeases/type").asString());
    }

    private JsonNode document() {
        return JSON.readTree(openApi.get("/openapi/v3/apis/crawl.example.com/v1alpha1").orElseThrow());
    }
}
