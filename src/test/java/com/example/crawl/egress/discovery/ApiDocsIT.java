package com.example.crawl.egress.discovery;

import static com.example.crawl.egress.discovery.DiscoveryWorld.managed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.ItRequirements;
import com.example.crawl.egress.api.Proxy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Runs every example of {@code docs/api.md} for real, in order, with curl: each {@code sh} block
 * that starts with {@code curl} is run by bash against a server holding the page's three Proxies,
 * and its output must match the {@code http} block after it: the status line, each header shown
 * (others may be there too) and the JSON body (compared as JSON; a {@code leaseId} only by its
 * shape). {@code $LEASE_ID} is the {@code leaseId} of the last 201 answer.
 */
class ApiDocsIT {

    private static final Path PAGE = Path.of("docs/api.md");
    private static final Pattern EXAMPLE = Pattern.compile("```sh\\n(curl .*?)```\\s*```http\\n(.*?)```", Pattern.DOTALL);
    private static final Pattern LEASE_ID = Pattern.compile("[A-Za-z0-9_-]{40,4000}");
    /** The token of the page's client, {@code eu-crawler}: the eu-west proxies of {@code crawl}, one lease at a time. */
    private static final String CLIENT_TOKEN = "eu-crawler-9f2c4e61b0d7a3f58e2c9b4d7a1f6e30";
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** An HTTP answer, documented or received. */
    record Answer(String statusLine, Map<String, String> headers, String body) { }

    record Example(String command, Answer expected) { }

    @Test
    void shouldAnswerEveryDocumentedExampleAsDocumented() throws Exception {
        ItRequirements.require("curl", onPath("curl"), "apt-get install curl");
        List<Example> examples = examples(Files.readString(PAGE));
        assertTrue(examples.size() >= 10, "found " + examples.size() + " examples in " + PAGE);
        try (DiscoveryWorld world = DiscoveryWorld.start()) {
            Proxy euWest1 = managed("eu-west-1", "10.0.0.11", Map.of("region", "eu-west", "country", "de"), 2, true, 42L);
            euWest1.setStatus(euWest1.getStatus().withEgressIP("203.0.113.11"));
            world.create(euWest1);
            world.create(managed("eu-west-2", "10.0.0.12", Map.of("region", "eu-west", "country", "fr"), 1, false, null));
            world.create(managed("us-east-1", "10.0.1.21", Map.of("region", "us-east"), 1, false, null));
            ClientsIT.register(world, "eu-crawler", Map.of("token", CLIENT_TOKEN, "namespaces", DiscoveryWorld.NS,
                    "selector", "{\"region\":\"eu-west\"}", "maxLeases", "1"));
            Map<String, String> env = new HashMap<>(Map.of("DISCOVERY", "http://127.0.0.1:" + world.server.address()
                    .getPort(), "DISCOVERY_TOKEN", DiscoveryWorld.TOKEN, "CLIENT_TOKEN", CLIENT_TOKEN, "LEASE_ID", ""));
            for (Example example : examples) {
                Answer got = parse(run(example.command(), env));
                assertMatches(example, got);
                if (got.statusLine().contains(" 201 ")) {
                    env.put("LEASE_ID", JSON.readTree(got.body()).get("leaseId").asString());
                }
            }
        }
    }

    private static void assertMatches(Example example, Answer got) {
        String where = example.command() + "\nanswered:\n" + got;
        assertEquals(example.expected().statusLine(), got.statusLine(), where);
        example.expected().headers().forEach((name, value) -> assertEquals(value, got.headers().get(name),
                name + " of " + where));
        if (example.expected().body().isBlank()) {
            assertEquals("", got.body(), where);
        } else {
            assertEquals(normalized(example.expected().body()), normalized(got.body()), where);
        }
    }

    /**
     * The body as a JSON tree, with a well-formed {@code leaseId} replaced by a placeholder, and so
     * the lease digest in a lease's credentials and their password (both follow from the random id).
     */
    private static JsonNode normalized(String body) {
        JsonNode tree = JSON.readTree(body);
        if (tree instanceof ObjectNode object && object.has("leaseId")
                && LEASE_ID.matcher(object.get("leaseId").asString()).matches()) {
            object.put("leaseId", "<lease id>");
            if (object.path("credentials").asString("").equals("lease") && object.get("proxy") instanceof ObjectNode proxy) {
                String user = proxy.get("username").asString();
                String password = proxy.get("password").asString();
                String placeholder = user.substring(0, user.lastIndexOf('.') + 1) + "<lease digest>";
                proxy.put("url", proxy.get("url").asString().replace(user + ":" + password, placeholder + ":<password>"));
                proxy.put("username", placeholder).put("password", "<password>");
            }
        }
        return tree;
    }

    static List<Example> examples(String markdown) {
        List<Example> out = new ArrayList<>();
        Matcher m = EXAMPLE.matcher(markdown);
        while (m.find()) {
            out.add(new Example(m.group(1).strip(), parse(m.group(2))));
        }
        return out;
    }

    /** An answer as {@code curl -i} prints it or as the page shows it: status line, headers, blank line, body. */
    private static Answer parse(String text) {
        String normal = text.replace("\r\n", "\n");
        int blank = normal.indexOf("\n\n");
        String head = blank < 0 ? normal.strip() : normal.substring(0, blank);
        String body = blank < 0 ? "" : normal.substring(blank + 2).strip();
        String[] lines = head.split("\n");
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            headers.put(lines[i].substring(0, colon).toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).strip());
        }
        return new Answer(lines[0].strip(), headers, body);
    }

    private static String run(String command, Map<String, String> env) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", command).redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new AssertionError("failed: " + command + "\n" + out);
        }
        return out;
    }

    private static boolean onPath(String program) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(dir, program))) {
                return true;
            }
        }
        return false;
    }
}
