package com.example.crawl.egress.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link in {@code README.md} and {@code docs/**.md} points at a file or directory of
 * the repository, and a {@code #fragment} at a heading of the Markdown file it names (GitHub's
 * anchors: lower case, punctuation dropped, spaces to hyphens, {@code -1} for a repeat). Links in
 * code blocks and code spans are not links; absolute URLs are not checked (no network here).
 */
class DocLinksTest {

    private static final Pattern LINK = Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
    private static final Pattern CODE_SPAN = Pattern.compile("`[^`]*`");

    @Test
    void shouldPointEveryRelativeLinkAtSomethingThatExists() throws IOException {
        List<String> broken = new ArrayList<>();
        int checked = 0;
        for (Path page : pages()) {
            for (String target : links(Files.readAllLines(page))) {
                if (target.matches("^[a-z][a-z0-9+.-]*:.*")) {
                    continue; // http:, https:, mailto:
                }
                checked++;
                int hash = target.indexOf('#');
                String path = hash < 0 ? target : target.substring(0, hash);
                Path file = path.isEmpty() ? page : page.resolveSibling(path).normalize();
                if (!Files.exists(file)) {
                    broken.add(page + ": " + target + " (no " + file + ")");
                } else if (hash >= 0 && file.toString().endsWith(".md")
                        && !anchors(file).contains(target.substring(hash + 1))) {
                    broken.add(page + ": " + target + " (no such heading in " + file + ")");
                }
            }
        }
        assertEquals(List.of(), broken);
        assertTrue(checked >= 10, "links were found: " + checked);
    }

    @Test
    void shouldMakeGitHubsAnchors() {
        assertEquals(Set.of("flags", "what-a-restart-loses", "orphan-gc", "kubectl-in-local-mode", "a-b", "a-b-1"),
                anchorsOf(List.of("## Flags", "## What a restart loses", "## Orphan GC", "## `kubectl` in local mode",
                        "### A: b", "### A b")));
    }

    private static List<Path> pages() throws IOException {
        List<Path> out = new ArrayList<>(List.of(Path.of("README.md")));
        out.addAll(docsPages());
        return out;
    }

    /** Every Markdown file under {@code docs/}, at any depth, sorted. */
    static List<Path> docsPages() throws IOException {
        try (Stream<Path> docs = Files.walk(Path.of("docs"))) {
            return docs.filter(p -> p.toString().endsWith(".md")).sorted().toList();
        }
    }

    /** Link targets of these Markdown lines, outside fenced code blocks and code spans. */
    static List<String> links(List<String> lines) {
        List<String> out = new ArrayList<>();
        boolean fenced = false;
        for (String line : lines) {
            if (line.strip().startsWith("```")) {
                fenced = !fenced;
                continue;
            }
            if (fenced) {
                continue;
            }
            Matcher m = LINK.matcher(CODE_SPAN.matcher(line).replaceAll(""));
            while (m.find()) {
                out.add(m.group(1));
            }
        }
        return out;
    }

    private static Set<String> anchors(Path file) throws IOException {
        List<String> headings = new ArrayList<>();
        boolean fenced = false;
        for (String line : Files.readAllLines(file)) {
            if (line.strip().startsWith("```")) {
                fenced = !fenced;
            } else if (!fenced && line.matches("^#{1,6} .*")) {
                headings.add(line);
            }
        }
        return anchorsOf(headings);
    }

    private static Set<String> anchorsOf(List<String> headings) {
        Set<String> out = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        for (String heading : headings) {
            String slug = heading.replaceFirst("^#+ ", "").strip().toLowerCase(Locale.ROOT)
                    .replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
            int n = seen.merge(slug, 1, Integer::sum);
            out.add(n == 1 ? slug : slug + "-" + (n - 1));
        }
        return out;
    }
}
