package com.example.crawl.egress.client;

import io.fabric8.kubernetes.api.model.Secret;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * What a client Secret says: a Secret labelled {@value #LABEL}{@code =true} whose name is the
 * client's and whose keys are its token, scope, access, quotas and weight (docs/api.md, "Clients").
 * Every key is checked and an unknown one refuses the Secret, so that a typo never means "no
 * limit". A refusal's message names the key and the rule, never the token.
 */
public final class ClientSecret {

    /** The label that makes a Secret a client's. */
    public static final String LABEL = "crawl.example.com/discovery-client";
    /** The name metrics and the audit log give the operator's own token: no client may take it. */
    public static final String ADMIN = "admin";

    static final int MIN_TOKEN = 32;
    static final int MAX_TOKEN = 1024;
    static final int MAX_LEASES = 1_000_000;
    static final double MAX_RATE = 100_000;
    static final int MAX_WEIGHT = 1000;
    private static final Set<String> KEYS = Set.of("token", "namespaces", "selector", "access", "maxLeases",
            "leaseRate", "leaseBurst", "weight");
    private static final Pattern NAMESPACE = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
    private static final JsonMapper JSON = JsonMapper.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    /** A Secret that defines no client, and why. */
    public static final class Refused extends Exception {
        Refused(String message) {
            super(message, null, false, false);
        }
    }

    private ClientSecret() {
    }

    /** The client {@code secret} defines. @throws Refused with what is wrong, for its Event */
    public static Client parse(Secret secret) throws Refused {
        String name = secret.getMetadata().getName();
        if (ADMIN.equals(name)) {
            throw new Refused("the client name \"" + ADMIN + "\" is the operator's own token's; name the Secret otherwise");
        }
        if (name.length() > 253) {
            throw new Refused("a client's name is at most 253 characters");
        }
        Map<String, String> data = data(secret);
        for (String key : data.keySet()) {
            if (!KEYS.contains(key)) {
                throw new Refused("unknown key \"" + echo(key) + "\"; a client Secret has " + String.join(", ", KEYS.stream()
                        .sorted().toList()));
            }
        }
        String token = required(data, "token");
        if (token.length() < MIN_TOKEN || token.length() > MAX_TOKEN
                || !token.chars().allMatch(c -> c > 32 && c < 127)) {
            throw new Refused("token must be " + MIN_TOKEN + " to " + MAX_TOKEN + " printable ASCII characters without "
                    + "spaces (for example `openssl rand -hex 32`)");
        }
        Scope scope = new Scope(namespaces(required(data, "namespaces")), selector(data.get("selector")));
        Access access = switch (data.getOrDefault("access", "lease")) {
            case "lease" -> Access.LEASE;
            case "list" -> Access.LIST;
            default -> throw new Refused("access must be \"lease\" or \"list\"");
        };
        OptionalInt maxLeases = data.containsKey("maxLeases")
                ? OptionalInt.of(whole(data, "maxLeases", 1, MAX_LEASES)) : OptionalInt.empty();
        Optional<Rate> rate = rate(data);
        int weight = data.containsKey("weight") ? whole(data, "weight", 1, MAX_WEIGHT) : 1;
        return new Client(name, scope, access, maxLeases, rate, weight, digest(token));
    }

    /** SHA-256 of {@code token}'s UTF-8 bytes: what a client is found by. */
    public static byte[] digest(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** The Secret's keys as text: {@code data} decoded, and {@code stringData} for a key {@code data} lacks. */
    private static Map<String, String> data(Secret secret) throws Refused {
        Map<String, String> out = new LinkedHashMap<>();
        if (secret.getData() != null) {
            for (Map.Entry<String, String> e : secret.getData().entrySet()) {
                try {
                    out.put(e.getKey(), new String(Base64.getDecoder().decode(e.getValue() == null ? "" : e.getValue()),
                            StandardCharsets.UTF_8).strip());
                } catch (IllegalArgumentException bad) {
                    throw new Refused("the value of \"" + e.getKey() + "\" is not base64");
                }
            }
        }
        if (secret.getStringData() != null) {
            secret.getStringData().forEach((k, v) -> out.putIfAbsent(k, v == null ? "" : v.strip()));
        }
        return out;
    }

    /**
     * A value repeated in a refusal, which becomes an Event's note and a log line: at most 64
     * characters, control characters shown as {@code ?}. (Never the token: no message repeats it.)
     */
    static String echo(String value) {
        String cut = value.length() > 64 ? value.substring(0, 64) + "…" : value;
        return cut.codePoints().map(c -> Character.isISOControl(c) ? '?' : c)
                .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString();
    }

    private static String required(Map<String, String> data, String key) throws Refused {
        String value = data.get(key);
        if (value == null || value.isEmpty()) {
            throw new Refused("\"" + key + "\" is required");
        }
        return value;
    }

    private static Optional<Set<String>> namespaces(String value) throws Refused {
        if (value.equals("*")) {
            return Optional.empty();
        }
        Set<String> out = new LinkedHashSet<>();
        for (String part : value.split(",", -1)) {
            String namespace = part.strip();
            if (!NAMESPACE.matcher(namespace).matches()) {
                throw new Refused("namespaces must be \"*\" or namespace names separated by commas, and \""
                        + echo(namespace) + "\" is not one");
            }
            if (!out.add(namespace)) {
                throw new Refused("namespaces names \"" + echo(namespace) + "\" twice");
            }
        }
        return Optional.of(out);
    }

    private static Map<String, String> selector(String value) throws Refused {
        if (value == null) {
            return Map.of();
        }
        JsonNode tree;
        try {
            tree = JSON.readTree(value);
        } catch (JacksonException e) {
            throw new Refused("selector must be a JSON object of attribute names to values, like "
                    + "{\"region\":\"eu-west\"}; it is not valid JSON");
        }
        if (tree == null || !tree.isObject()) {
            throw new Refused("selector must be a JSON object of attribute names to values, like {\"region\":\"eu-west\"}");
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : tree.properties()) {
            if (e.getKey().isEmpty() || !e.getValue().isString()) {
                throw new Refused("selector's attribute \"" + echo(e.getKey())
                        + "\" must have a non-empty name and a string value");
            }
            out.put(e.getKey(), e.getValue().asString());
        }
        return out;
    }

    private static Optional<Rate> rate(Map<String, String> data) throws Refused {
        if (!data.containsKey("leaseRate")) {
            if (data.containsKey("leaseBurst")) {
                throw new Refused("leaseBurst comes only with leaseRate");
            }
            return Optional.empty();
        }
        double perSecond;
        try {
            perSecond = new BigDecimal(data.get("leaseRate")).doubleValue();
        } catch (NumberFormatException e) {
            perSecond = Double.NaN;
        }
        if (!(perSecond > 0 && perSecond <= MAX_RATE)) {
            throw new Refused("leaseRate must be a number of lease requests per second above 0 and at most "
                    + (int) MAX_RATE);
        }
        int burst = data.containsKey("leaseBurst") ? whole(data, "leaseBurst", 1, MAX_LEASES)
                : (int) Math.max(1, Math.ceil(perSecond));
        return Optional.of(new Rate(perSecond, burst));
    }

    private static int whole(Map<String, String> data, String key, int min, int max) throws Refused {
        String value = data.get(key);
        try {
            int n = Integer.parseInt(value);
            if (n >= min && n <= max && value.matches("[0-9]+")) {
                return n;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new Refused(key + " must be a whole number from " + min + " to " + max + ", not \"" + echo(value) + "\"");
    }
}
