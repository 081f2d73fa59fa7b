package com.example.crawl.egress.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The core v1 view of events.k8s.io Events, as kubectl describe reads it. */
class CoreEventsTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final JsonNode STORED = JSON.readTree("""
            {"kind":"EventList","apiVersion":"events.k8s.io/v1","metadata":{"resourceVersion":"40"},"items":[
             {"metadata":{"name":"local-eu.1","namespace":"default"},"eventTime":"2026-12-01T10:00:00.000000Z",
              "reportingController":"crawl.example.com/egress-proxies-operator","reportingInstance":"op-1",
              "action":"Create","reason":"InstanceCreated","note":"Created instance local/x","type":"Normal",
              "regarding":{"kind":"Proxy","namespace":"default","name":"local-eu","uid":"u-1"},
              "series":{"count":3,"lastObservedTime":"2026-12-01T10:05:00.000000Z"}},
             {"metadata":{"name":"local-us.1","namespace":"default"},"reason":"Unhealthy","note":"probe failed",
              "type":"Warning","regarding":{"kind":"Proxy","namespace":"default","name":"local-us","uid":"u-2"}}]}""");

    @Test
    void shouldConvertFieldByFieldAsTheApiServerDoes() throws Exception {
        JsonNode core = CoreEvents.list(STORED, null).get("items").get(0);

        assertEquals(JSON.readTree("""
                {"kind":"Event","apiVersion":"v1","metadata":{"name":"local-eu.1","namespace":"default"},
                 "involvedObject":{"kind":"Proxy","namespace":"default","name":"local-eu","uid":"u-1"},
                 "reason":"InstanceCreated","message":"Created instance local/x","type":"Normal",
                 "eventTime":"2026-12-01T10:00:00.000000Z",
                 "series":{"count":3,"lastObservedTime":"2026-12-01T10:05:00.000000Z"},"action":"Create",
                 "reportingComponent":"crawl.example.com/egress-proxies-operator","reportingInstance":"op-1"}"""), core);
        assertEquals("40", CoreEvents.list(STORED, "").at("/metadata/resourceVersion").asString());
    }

    @Test
    void shouldSelectByInvolvedObjectAsKubectlDescribeAsks() throws Exception {
        String describe = "involvedObject.name=local-us,involvedObject.namespace=default,"
                + "involvedObject.kind=Proxy,involvedObject.uid=u-2";

        assertEquals(List.of("local-us.1"), names(CoreEvents.list(STORED, describe)));
        assertEquals(List.of("local-eu.1"), names(CoreEvents.list(STORED, "type!=Warning")));
        assertEquals(List.of(), names(CoreEvents.list(STORED, "involvedObject.uid==nope")));
    }

    @Test
    void shouldRefuseAFieldCoreEventsCannotBeSelectedBy() {
        CoreEvents.BadSelector e = assertThrows(CoreEvents.BadSelector.class, () -> CoreEvents.list(STORED, "note=x"));
        assertEquals("field label not supported: note", e.getMessage());
    }

    private static List<String> names(JsonNode list) {
        return list.get("items").valueStream().map(i -> i.at("/metadata/name").asString()).toList();
    }
}
