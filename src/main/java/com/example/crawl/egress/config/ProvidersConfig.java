package com.example.crawl.egress.config;

import com.example.crawl.egress.config.ProviderConfig.Gcp;
import com.example.crawl.egress.config.ProviderConfig.Kubernetes;
import com.example.crawl.egress.config.ProviderConfig.Kvm;
import com.example.crawl.egress.config.ProviderConfig.KvmHost;
import com.example.crawl.egress.config.ProviderConfig.Local;
import com.example.crawl.egress.config.ProviderConfig.Settings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The providers config file, read once at start:
 *
 * <pre>{@code
 * providers:
 *   - name: gcp-eu
 *     type: gcp
 *     gcp: {project: crawl-prod}
 * }</pre>
 *
 * Each entry has a unique {@code name}, a {@code type} and a block named after the type; unknown
 * fields, a block of another type and duplicate names are errors naming the entry and field.
 */
public record ProvidersConfig(List<ProviderConfig> providers) {

    public static final ProvidersConfig NONE = new ProvidersConfig(List.of());

    private static final Set<String> TYPES = Set.of("kubernetes", "gcp", "kvm", "local");
    private static final String DELETE_UNUSED_IMAGES_AFTER = "deleteUnusedImagesAfter";
    private static final String NEVER = "never";

    public ProvidersConfig {
        providers = List.copyOf(providers);
    }

    /** The entry with this name, if configured. */
    public Optional<ProviderConfig> find(String name) {
        return providers.stream().filter(p -> p.name().equals(name)).findFirst();
    }

    /** Reads and validates the file. */
    /** The file, when one is given; no providers otherwise. */
    public static ProvidersConfig load(Optional<Path> file) throws ConfigException {
        return file.isPresent() ? load(file.get()) : NONE;
    }

    public static ProvidersConfig load(Path file) throws ConfigException {
        try {
            return parse(Files.readString(file));
        } catch (IOException e) {
            throw new ConfigException("providers config: cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    /** Parses YAML text; an empty document means no providers. */
    public static ProvidersConfig parse(String yaml) throws ConfigException {
        JsonNode root;
        try {
            root = new YAMLMapper().readTree(yaml);
        } catch (JacksonException e) {
            throw new ConfigException("providers config: not valid YAML: " + e.getOriginalMessage(), e);
        }
        if (root == null || root.isMissingNode() || root.isNull()) {
            return NONE;
        }
        YamlNode top = new YamlNode(root, "").requireObject(Set.of("providers"));
        List<ProviderConfig> out = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (YamlNode entry : top.list("providers")) {
            ProviderConfig p = entry(entry, out.size());
            if (!names.add(p.name())) {
                throw YamlNode.error("providers[" + out.size() + "]", "duplicate name \"" + p.name() + "\"");
            }
            out.add(p);
        }
        return new ProvidersConfig(out);
    }

    private static ProviderConfig entry(YamlNode raw, int index) throws ConfigException {
        String at = "providers[" + index + "]";
        YamlNode e = new YamlNode(raw.node(), at).requireObject(Set.of("name", "type", "kubernetes", "gcp", "kvm", "local"));
        String name = e.requiredString("name");
        YamlNode named = new YamlNode(raw.node(), at + " (" + name + ")");
        String type = named.requiredString("type");
        if (!TYPES.contains(type)) {
            throw YamlNode.error(named.path() + ".type", "unknown type \"" + type + "\" (allowed: gcp, kubernetes, kvm, local)");
        }
        for (String other : TYPES) {
            if (!other.equals(type) && raw.node().get(other) != null) {
                throw YamlNode.error(named.path() + "." + other, "block does not match type " + type);
            }
        }
        return new ProviderConfig(name, settings(type, named.child(type)));
    }

    private static Settings settings(String type, YamlNode b) throws ConfigException {
        return switch (type) {
            case "kubernetes" -> {
                b.requireObject(Set.of("namespace", "image"));
                yield new Kubernetes(b.optionalString("namespace", ""), b.optionalString("image", Kubernetes.DEFAULT_IMAGE));
            }
            case "gcp" -> {
                b.requireObject(Set.of("project", "endpoint", "credentialsFile"));
                String creds = b.optionalString("credentialsFile", "");
                yield new Gcp(b.requiredString("project"), b.optionalString("endpoint", ""),
                        creds.isEmpty() ? Optional.empty() : Optional.of(Path.of(creds)));
            }
            case "kvm" -> kvm(b);
            default -> {
                b.requireObject(Set.of("stateDir", "squidBinary"));
                // Required: a default under the shared /tmp would be a path another user can create first.
                yield new Local(Path.of(b.requiredString("stateDir")),
                        b.optionalString("squidBinary", "squid"));
            }
        };
    }

    private static ProviderConfig.Accelerator accelerator(YamlNode h) throws ConfigException {
        String value = h.optionalString("accelerator", ProviderConfig.Accelerator.auto.name());
        for (ProviderConfig.Accelerator a : ProviderConfig.Accelerator.values()) {
            if (a.name().equals(value)) {
                return a;
            }
        }
        throw YamlNode.error(h.path() + ".accelerator", "must be auto, kvm or tcg, not \"" + value + "\"");
    }

    private static Kvm kvm(YamlNode b) throws ConfigException {
        b.requireObject(Set.of("hosts", "pool", DELETE_UNUSED_IMAGES_AFTER));
        List<KvmHost> hosts = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (YamlNode h : b.list("hosts")) {
            h.requireObject(Set.of("name", "address", "port", "user", "privateKeyFile", "knownHostsFile", "socket",
                    "accelerator"));
            KvmHost host = new KvmHost(h.requiredString("name"), h.requiredString("address"),
                    h.optionalInt("port", 22, 1, 65535), h.requiredString("user"),
                    Path.of(h.requiredString("privateKeyFile")), Path.of(h.requiredString("knownHostsFile")),
                    h.optionalString("socket", "/var/run/libvirt/libvirt-sock"), accelerator(h));
            if (!names.add(host.name())) {
                throw YamlNode.error(h.path() + ".name", "duplicate host name \"" + host.name() + "\"");
            }
            hosts.add(host);
        }
        if (hosts.isEmpty()) {
            throw YamlNode.error(b.path() + ".hosts", "at least one host is required");
        }
        return new Kvm(hosts, b.optionalString("pool", "default"), deleteUnusedImagesAfter(b));
    }

    /** {@code never}, or a duration above zero in the flags' grammar; a week when absent. */
    private static Optional<Duration> deleteUnusedImagesAfter(YamlNode b) throws ConfigException {
        JsonNode raw = b.node().get(DELETE_UNUSED_IMAGES_AFTER);
        if (raw == null || raw.isNull()) {
            return Optional.of(Kvm.DEFAULT_DELETE_UNUSED_IMAGES_AFTER);
        }
        String value = raw.isString() ? raw.stringValue() : raw.toString();
        if (value.equals(NEVER)) {
            return Optional.empty();
        }
        Duration after = Duration.ZERO;
        if (raw.isString()) {
            try {
                after = Flags.parseDuration(value);
            } catch (IllegalArgumentException e) {
                // refused below, with the form it must have
            }
        }
        if (!after.isPositive()) {
            throw YamlNode.error(b.path() + "." + DELETE_UNUSED_IMAGES_AFTER, "must be a duration above zero such as "
                    + "168h (hours are the largest unit), or " + NEVER + " to keep every image, not "
                    + (raw.isString() ? "\"" + value + "\"" : value));
        }
        return Optional.of(after);
    }
}
