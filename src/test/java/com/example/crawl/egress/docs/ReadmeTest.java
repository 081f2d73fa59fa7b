package com.example.crawl.egress.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.MatchResult;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * What {@code README.md} says about the tree stays true to it: what it calls planned is nothing the
 * code already has, and its Documentation list names every page under {@code docs/}.
 *
 * <p>"Has" means a kind of a CRD under {@code crd/}, a type of the {@code api} package, or a
 * package (a component, a provider). A planned sentence runs from {@code Planned:} to its full
 * stop or its paragraph's end; the names in it are the words of its code spans and its CamelCase
 * words (so "Planned: `ProxyPool`" and "Planned: ProxyPool" count, "Planned: Proxy sharding" does not).
 */
class ReadmeTest {

    private static final Path README = Path.of("README.md");
    private static final Path SOURCES = Path.of("src/main/java/com/example/crawl/egress");
    private static final Pattern PLANNED = Pattern.compile("Planned:(.*?)(?:\\.(?=\\s|$)|\\n\\s*\\n|$)",
            Pattern.DOTALL);
    private static final Pattern CODE_SPAN = Pattern.compile("`([^`]*)`");
    private static final Pattern WORD = Pattern.compile("[A-Za-z][A-Za-z0-9_-]*");
    private static final Pattern CAMEL_CASE = Pattern.compile("\\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\\b");

    @Test
    void shouldPlanNothingTheCodeAlreadyHas() throws IOException {
        Set<String> built = built();

        List<String> plannedButBuilt = planned(Files.readString(README)).stream().filter(built::contains).toList();

        assertEquals(List.of(), plannedButBuilt, README + " calls planned what the code has; say it is built");
    }

    @Test
    void shouldListEveryPageUnderDocsInTheDocumentationSection() throws IOException {
        Set<Path> listed = new TreeSet<>();
        for (String target : DocLinksTest.links(section(Files.readAllLines(README), "## Documentation"))) {
            listed.add(Path.of(target.replaceFirst("#.*", "")).normalize());
        }

        List<Path> missing = DocLinksTest.docsPages().stream().filter(p -> !listed.contains(p.normalize())).toList();

        assertEquals(List.of(), missing, "pages under docs/ that the Documentation list of " + README + " omits");
        assertTrue(listed.size() >= 10, "the list was read: " + listed);
    }

    @Test
    void shouldReadThePlannedNamesAndWhatTheCodeHas() throws IOException {
        assertEquals(List.of("ProxyPool", "kvm", "BlueGreen"), planned("""
                **Status:** built: the `Proxy` controller.
                Planned: `ProxyPool`, a `kvm` provider and BlueGreen rollouts, not Proxy sharding.
                `docs/architecture.md` says what exists today.
                """));
        assertEquals(List.of("ProviderHealth"), planned("Planned:\n`ProviderHealth` objects\n\nAfter `Proxy`"));
        assertEquals(List.of(), planned("**Status:** everything in `docs/architecture.md`."));
        assertTrue(built().containsAll(Set.of("Proxy", "ProxyPool", "ProviderHealth", "CloudInit", "pool", "lease",
                "kubernetes", "gcp", "kvm", "local")), built().toString());
    }

    /** The names of every planned sentence of {@code markdown}, in order. */
    private static List<String> planned(String markdown) {
        List<String> names = new ArrayList<>();
        Matcher sentence = PLANNED.matcher(markdown);
        while (sentence.find()) {
            String text = sentence.group(1);
            Matcher span = CODE_SPAN.matcher(text);
            StringBuilder prose = new StringBuilder();
            while (span.find()) {
                WORD.matcher(span.group(1)).results().map(MatchResult::group).forEach(names::add);
                span.appendReplacement(prose, " ");
            }
            span.appendTail(prose);
            CAMEL_CASE.matcher(prose).results().map(MatchResult::group).forEach(names::add);
        }
        return names;
    }

    /** CRD kinds, {@code api} types, and the names of the packages and provider packages. */
    private static Set<String> built() throws IOException {
        Set<String> out = new TreeSet<>();
        try (Stream<Path> crds = Files.list(Path.of("crd"))) {
            for (Path file : crds.filter(p -> p.toString().endsWith(".yaml")).toList()) {
                String yaml = Files.readString(file);
                if (yaml.contains("kind: CustomResourceDefinition")) {
                    CustomResourceDefinition crd = Serialization.unmarshal(yaml, CustomResourceDefinition.class);
                    out.add(crd.getSpec().getNames().getKind());
                }
            }
        }
        try (Stream<Path> api = Files.list(SOURCES.resolve("api"))) {
            api.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".java") && !n.equals("package-info.java"))
                    .map(n -> n.substring(0, n.length() - ".java".length())).forEach(out::add);
        }
        for (Path parent : List.of(SOURCES, SOURCES.resolve("provider"))) {
            try (Stream<Path> packages = Files.list(parent)) {
                packages.filter(Files::isDirectory).map(p -> p.getFileName().toString()).forEach(out::add);
            }
        }
        return out;
    }

    /** The lines of the section that starts with {@code heading}, up to the next heading of its level. */
    private static List<String> section(List<String> lines, String heading) {
        int start = lines.indexOf(heading);
        assertTrue(start >= 0, "no \"" + heading + "\" in " + README);
        String level = heading.substring(0, heading.indexOf(' ') + 1);
        int end = start + 1;
        while (end < lines.size() && !lines.get(end).startsWith(level)) {
            end++;
        }
        return lines.subList(start + 1, end);
    }
}
