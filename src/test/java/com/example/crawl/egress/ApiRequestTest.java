package com.example.crawl.egress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ApiRequestTest {

    @Test
    void shouldReadGroupResourceVerbAndNamespaceAsRbacDoes() {
        assertEquals(new ApiRequest("", "pods", "get", "crawl"), of("GET", "/api/v1/namespaces/crawl/pods/p", ""));
        assertEquals(new ApiRequest("", "pods", "list", ""), of("GET", "/api/v1/pods", "labelSelector=a=b&limit=1"));
        assertEquals(new ApiRequest("", "secrets", "watch", ""), of("GET", "/api/v1/secrets", "watch=true&x=1"));
        assertEquals(new ApiRequest("crawl.example.com", "proxies/status", "update", "crawl"),
                of("PUT", "/apis/crawl.example.com/v1alpha1/namespaces/crawl/proxies/p1/status", ""));
        assertEquals(new ApiRequest("crawl.example.com", "providerhealths", "delete", ""),
                of("DELETE", "/apis/crawl.example.com/v1alpha1/providerhealths/gone", ""));
        assertEquals(new ApiRequest("events.k8s.io", "events", "patch", "crawl"),
                of("PATCH", "/apis/events.k8s.io/v1/namespaces/crawl/events/p1.1", ""));
        assertEquals(new ApiRequest("", "secrets", "deletecollection", "crawl"),
                of("DELETE", "/api/v1/namespaces/crawl/secrets", ""));
        assertEquals(new ApiRequest("", "namespaces", "get", ""), of("GET", "/api/v1/namespaces/crawl", ""));
        assertEquals(new ApiRequest("", "secrets", "create", "crawl"), of("POST", "/api/v1/namespaces/crawl/secrets", ""));
        assertEquals(Optional.empty(), ApiRequest.of("GET", "/version", ""));
        assertEquals(Optional.empty(), ApiRequest.of("GET", "/apis", ""));
    }

    @Test
    void shouldGrantNamespacedRulesOnlyInTheOperatorsNamespace() {
        ApiAccess.Rule lease = new ApiAccess.Rule("coordination.k8s.io", "leases", Set.of("get"), ApiAccess.Scope.OPERATOR_NAMESPACE);
        assertTrue(of("GET", "/apis/coordination.k8s.io/v1/namespaces/ops/leases/l", "").grantedBy(lease, "ops"));
        assertFalse(of("GET", "/apis/coordination.k8s.io/v1/namespaces/other/leases/l", "").grantedBy(lease, "ops"));
        assertFalse(of("PUT", "/apis/coordination.k8s.io/v1/namespaces/ops/leases/l", "").grantedBy(lease, "ops"));
        ApiAccess.Rule pods = new ApiAccess.Rule("", "pods", Set.of("get"), ApiAccess.Scope.CLUSTER);
        assertTrue(of("GET", "/api/v1/namespaces/any/pods/p", "").grantedBy(pods, "ops"));
        assertFalse(of("GET", "/api/v1/namespaces/any/pods/p/log", "").grantedBy(pods, "ops"));
    }

    private static ApiRequest of(String method, String path, String query) {
        return ApiRequest.of(method, path, query).orElseThrow();
    }
}
