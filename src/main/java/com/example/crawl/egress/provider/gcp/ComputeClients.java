package com.example.crawl.egress.provider.gcp;

import com.example.crawl.egress.config.ConfigException;
import com.example.crawl.egress.config.ProviderConfig;
import com.google.api.gax.core.CredentialsProvider;
import com.google.api.gax.core.FixedCredentialsProvider;
import com.google.api.gax.core.NoCredentialsProvider;
import com.google.api.gax.retrying.RetrySettings;
import com.google.auth.oauth2.ServiceAccountCredentials;
import com.google.cloud.compute.v1.InstancesClient;
import com.google.cloud.compute.v1.InstancesSettings;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;

/**
 * Builds the Compute Engine client a {@link GcpProvider} uses: REST transport (the only one the
 * jar carries), the entry's endpoint when it names one, one attempt per call bounded by a timeout.
 *
 * <p>Credentials: an {@code http://} endpoint (a test fake, a local emulator) gets none, so a
 * token never crosses a plain-text connection; otherwise the entry's service-account key file
 * when it names one (read as a service-account key only, never as an arbitrary credential
 * configuration that could run a program), else Application Default Credentials (Workload
 * Identity on GKE, the metadata server on a VM, {@code GOOGLE_APPLICATION_CREDENTIALS}).
 */
final class ComputeClients {

    private ComputeClients() {
    }

    /** The client for provider {@code name}'s settings. */
    static InstancesClient create(String name, ProviderConfig.Gcp settings, Duration timeout) throws ConfigException {
        String at = "providers config: provider " + name + " (gcp)";
        boolean plain = settings.endpoint().startsWith("http://");
        if (plain && settings.credentialsFile().isPresent()) {
            throw new ConfigException(at + ": credentialsFile cannot be sent to a plain-http endpoint ("
                    + settings.endpoint() + ")");
        }
        CredentialsProvider credentials = plain ? NoCredentialsProvider.create()
                : settings.credentialsFile().isPresent() ? keyFile(at, settings.credentialsFile().get())
                : InstancesSettings.defaultCredentialsProviderBuilder().build();
        try {
            return InstancesClient.create(settings(settings.endpoint(), credentials, timeout));
        } catch (IOException e) {
            throw new ConfigException(at + ": cannot build the Compute Engine client: " + e.getMessage());
        }
    }

    /**
     * Client settings: {@code endpoint} (empty = Google's), {@code credentials}, and for every
     * call a single attempt with {@code timeout} as its deadline and no retryable codes.
     */
    static InstancesSettings settings(String endpoint, CredentialsProvider credentials, Duration timeout)
            throws IOException {
        InstancesSettings.Builder builder = InstancesSettings.newBuilder().setCredentialsProvider(credentials);
        if (!endpoint.isEmpty()) {
            builder.setEndpoint(endpoint);
        }
        RetrySettings once = RetrySettings.newBuilder().setMaxAttempts(1)
                .setTotalTimeoutDuration(timeout).setInitialRpcTimeoutDuration(timeout)
                .setMaxRpcTimeoutDuration(timeout).setRpcTimeoutMultiplier(1.0).build();
        builder.applyToAllUnaryMethods(method -> {
            method.setRetrySettings(once).setRetryableCodes(Set.of());
            return null;
        });
        return builder.build();
    }

    private static CredentialsProvider keyFile(String at, Path file) throws ConfigException {
        try (InputStream in = Files.newInputStream(file)) {
            return FixedCredentialsProvider.create(ServiceAccountCredentials.fromStream(in)
                    .createScoped(InstancesSettings.getDefaultServiceScopes()));
        } catch (IOException e) {
            // The message names the file and the problem, never the key's content.
            throw new ConfigException(at + ": credentialsFile " + file + " is not a readable service-account key: "
                    + e.getMessage());
        }
    }
}
