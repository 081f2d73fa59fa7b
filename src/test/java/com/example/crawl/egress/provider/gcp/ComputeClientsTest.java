package com.example.crawl.egress.provider.gcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.config.ConfigException;
import com.example.crawl.egress.config.ProviderConfig;
import com.google.api.gax.core.NoCredentialsProvider;
import com.google.api.gax.rpc.StatusCode;
import com.google.api.gax.rpc.UnaryCallSettings;
import com.google.cloud.compute.v1.InstancesSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The client's settings and the configuration errors a gcp entry can have; no network. */
class ComputeClientsTest {

    @Test
    void shouldMakeEveryCallOneAttemptBoundedByTheTimeout() throws Exception {
        InstancesSettings settings = ComputeClients.settings("http://127.0.0.1:1", NoCredentialsProvider.create(),
                Duration.ofSeconds(7));

        List<UnaryCallSettings<?, ?>> calls = List.of(settings.insertSettings(), settings.getSettings(),
                settings.deleteSettings(), settings.aggregatedListSettings());
        for (UnaryCallSettings<?, ?> call : calls) {
            assertEquals(1, call.getRetrySettings().getMaxAttempts());
            assertEquals(Duration.ofSeconds(7), call.getRetrySettings().getTotalTimeoutDuration());
            assertEquals(Duration.ofSeconds(7), call.getRetrySettings().getInitialRpcTimeoutDuration());
            assertEquals(java.util.Set.<StatusCode.Code>of(), call.getRetryableCodes());
        }
        assertEquals("http://127.0.0.1:1", settings.getEndpoint());
    }

    @Test
    void shouldRefuseToSendAKeyToAPlainHttpEndpoint(@TempDir Path dir) {
        ProviderConfig.Gcp settings = new ProviderConfig.Gcp("crawl-test", "http://127.0.0.1:1",
                Optional.of(dir.resolve("key.json")));

        ConfigException e = assertThrows(ConfigException.class,
                () -> ComputeClients.create("gcp-eu", settings, Duration.ofSeconds(1)));
        assertTrue(e.getMessage().contains("provider gcp-eu (gcp): credentialsFile"), e.getMessage());
    }

    @Test
    void shouldNameAKeyFileThatIsMissingWithoutQuotingIt(@TempDir Path dir) throws Exception {
        Path missing = dir.resolve("missing.json");
        Path wrongType = Files.writeString(dir.resolve("user.json"),
                "{\"type\": \"authorized_user\", \"client_secret\": \"s3cret-value\"}");

        for (Path key : List.of(missing, wrongType)) {
            ConfigException e = assertThrows(ConfigException.class, () -> ComputeClients.create("gcp-eu",
                    new ProviderConfig.Gcp("crawl-test", "", Optional.of(key)), Duration.ofSeconds(1)));
            assertTrue(e.getMessage().startsWith("providers config: provider gcp-eu (gcp): credentialsFile " + key),
                    e.getMessage());
            assertFalse(e.getMessage().contains("s3cret-value"), e.getMessage());
        }
    }
}
