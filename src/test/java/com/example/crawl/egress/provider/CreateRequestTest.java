package com.example.crawl.egress.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.GcpSpec;
import com.example.crawl.egress.api.InstanceName;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxySpec;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import org.junit.jupiter.api.Test;

class CreateRequestTest {
    private static final String SECRET = "#cloud-config\nchpasswd: {list: 'root:hunter2'}\n";
    private static final GcpSpec GCP = new GcpSpec("europe-west4-a", "e2-small", "debian-13", null, null, null, null);

    @Test
    void shouldNotPrintTheCloudInitContent() {
        CreateRequest req = new CreateRequest("proxy-abc", "uid-1", "crawl", "eu-1", 3128, SECRET, TestCredentials.ANY, GCP, null, null);

        String printed = req.toString();

        assertFalse(printed.contains("hunter2"), printed);
        assertTrue(printed.contains("cloudInit=<" + SECRET.length() + " chars>"), printed);
        assertTrue(printed.contains("zone=europe-west4-a"), printed);
    }

    @Test
    void shouldPrintAMissingCloudInitAsNull() {
        CreateRequest req = new CreateRequest("proxy-abc", "uid-1", "crawl", "eu-1", 3128, null, TestCredentials.ANY, null, null, null);

        assertTrue(req.toString().contains("cloudInit=null"), req.toString());
    }

    @Test
    void shouldBuildTheRequestForAProxyWithItsDeterministicName() {
        Proxy proxy = new Proxy();
        proxy.setMetadata(new ObjectMetaBuilder().withNamespace("crawl").withName("eu-1").withUid("uid-1").build());
        proxy.setSpec(new ProxySpec(null, "gcp-eu", 8080, null, null, null, GCP, null, null, null, null));

        CreateRequest req = CreateRequest.of(proxy, SECRET, TestCredentials.ANY);

        assertEquals(new CreateRequest(InstanceName.fromUid("uid-1"), "uid-1", "crawl", "eu-1", 8080, SECRET,
                TestCredentials.ANY, GCP, null, null), req);
    }
}
