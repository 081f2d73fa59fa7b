package com.example.crawl.egress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * What can be checked of the Dockerfile without a container engine: the build context holds what
 * it copies, the image runs the jar the build makes, and it runs as a numeric non-root user, the
 * one the Deployment names.
 */
class DockerfileTest {

    private static final Path DOCKERFILE = Path.of("Dockerfile");
    private static final Pattern USER = Pattern.compile("(\\d+)(?::(\\d+))?");

    /** One instruction, continuation lines joined. */
    record Instruction(String keyword, String args) { }

    @Test
    void shouldCopyOnlyWhatTheRepositoryAndTheBuildContextHold() throws IOException {
        List<String> included = Files.readAllLines(Path.of(".dockerignore")).stream()
                .filter(l -> l.startsWith("!")).map(l -> l.substring(1).replaceAll("/$", "")).toList();
        List<String> copied = new ArrayList<>();
        for (Instruction i : instructions("COPY")) {
            if (i.args().startsWith("--from=")) {
                continue;
            }
            List<String> words = Arrays.asList(i.args().split("\\s+"));
            for (String source : words.subList(0, words.size() - 1)) {
                assertTrue(Files.exists(Path.of(source)), source + " is copied but not in the repository");
                assertTrue(included.stream().anyMatch(inc -> source.equals(inc) || source.startsWith(inc + "/")),
                        source + " is copied but .dockerignore leaves it out of the build context");
                copied.add(source);
            }
        }
        assertTrue(copied.containsAll(List.of("pom.xml", "src/main")), copied.toString());
        assertTrue(Files.readString(Path.of(".dockerignore")).lines().filter(l -> !l.isBlank() && !l.startsWith("#"))
                .findFirst().orElse("").equals("*"),
                ".dockerignore starts from nothing, so that target/, .git and secrets stay out");
    }

    @Test
    void shouldRunTheJarTheBuildMakes() throws Exception {
        String jar = finalName() + ".jar";
        Instruction copy = instructions("COPY").stream().filter(i -> i.args().startsWith("--from=build ")).findFirst()
                .orElseThrow(() -> new AssertionError("no COPY --from=build"));
        String[] words = copy.args().split("\\s+");
        assertTrue(words[1].endsWith("/target/" + jar), words[1] + " is not the jar the build makes (" + jar + ")");
        String installed = words[2];
        assertEquals("/opt/egress-proxies/" + jar, installed);

        JsonNode entrypoint = JsonMapper.builder().build().readTree(last("ENTRYPOINT").args());
        assertTrue(entrypoint.isArray(), "exec form, so that java is PID 1 and gets SIGTERM");
        List<String> argv = new ArrayList<>();
        entrypoint.forEach(n -> argv.add(n.asString()));
        assertEquals(List.of("java", "-jar", installed), argv);
    }

    @Test
    void shouldRunAsTheNumericNonRootUserTheDeploymentNames() throws IOException {
        Matcher m = USER.matcher(last("USER").args());
        assertTrue(m.matches(), "USER must be numeric (uid[:gid]) so that runAsNonRoot can verify it: " + last("USER"));
        assertNotEquals("0", m.group(1));
        assertFalse(m.group(2) != null && m.group(2).equals("0"), "group 0");
        JsonNode pod = new YAMLMapper().readTree(Path.of("deploy/base/deployment.yaml").toFile())
                .at("/spec/template/spec/securityContext");
        assertEquals(m.group(1), pod.get("runAsUser").asString());
    }

    @Test
    void shouldBuildOnAJdkAndRunOnAJreWithLibvirt() throws IOException {
        List<Instruction> from = instructions("FROM");
        assertEquals(2, from.size(), from.toString());
        assertTrue(from.get(0).args().matches("maven:\\S*temurin-25\\S* AS build"), from.get(0).toString());
        assertEquals("eclipse-temurin:25-jre", from.get(1).args());
        assertTrue(instructions("RUN").stream().anyMatch(i -> i.args().contains("apt-get install")
                && i.args().contains("libvirt0")), "libvirt0 for the kvm provider");
    }

    /** The name of the shaded jar: the shade plugin's finalName, else the build's. */
    static String finalName() throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        Document pom = factory.newDocumentBuilder().parse(Path.of("pom.xml").toFile());
        Element build = child(pom.getDocumentElement(), "build");
        Element plugins = child(build, "plugins");
        NodeList list = plugins.getElementsByTagName("plugin");
        for (int i = 0; i < list.getLength(); i++) {
            Element plugin = (Element) list.item(i);
            if (text(child(plugin, "artifactId")).equals("maven-shade-plugin")) {
                NodeList names = plugin.getElementsByTagName("finalName");
                if (names.getLength() > 0) {
                    return names.item(0).getTextContent().trim();
                }
            }
        }
        return text(child(build, "finalName"));
    }

    private static Element child(Element parent, String name) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                return e;
            }
        }
        throw new AssertionError("pom.xml: no <" + name + "> in <" + parent.getTagName() + ">");
    }

    private static String text(Element e) {
        return e.getTextContent().trim();
    }

    private static Instruction last(String keyword) throws IOException {
        List<Instruction> all = instructions(keyword);
        assertFalse(all.isEmpty(), "no " + keyword);
        return all.getLast();
    }

    static List<Instruction> instructions(String keyword) throws IOException {
        List<Instruction> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : Files.readAllLines(DOCKERFILE)) {
            String trimmed = line.strip();
            if (current.isEmpty() && (trimmed.isEmpty() || trimmed.startsWith("#"))) {
                continue;
            }
            if (trimmed.endsWith("\\")) {
                current.append(trimmed, 0, trimmed.length() - 1).append(' ');
                continue;
            }
            current.append(trimmed);
            String[] parts = current.toString().split("\\s+", 2);
            if (parts[0].equalsIgnoreCase(keyword)) {
                out.add(new Instruction(parts[0].toUpperCase(java.util.Locale.ROOT), parts.length > 1 ? parts[1].strip() : ""));
            }
            current.setLength(0);
        }
        return out;
    }
}
