package com.example.crawl.egress.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/operations.md}'s Flags table against the flag table the operator parses
 * ({@link FlagTable#declare()}): every declared flag has a row with the default {@code --help}
 * prints, and no row names a flag the operator does not know.
 */
class FlagsDocumentedTest {

    private static final Path PAGE = Path.of("docs/operations.md");
    private static final Pattern ROW = Pattern.compile("^\\| `--([a-z0-9-]+)` \\|([^|]*)\\|.*");
    private static final Pattern CODE = Pattern.compile("^`([^`]*)`");

    @Test
    void shouldDocumentEveryDeclaredFlagWithItsDefaultAndNoOther() throws IOException {
        Map<String, String> documented = rows();
        List<Flags.Flag> declared = FlagTable.declare().declared();
        List<String> problems = new ArrayList<>();
        for (Flags.Flag flag : declared) {
            String cell = documented.get(flag.name());
            if (cell == null) {
                problems.add("--" + flag.name() + " is not in the Flags table");
            } else if (!flag.defaultValue().isEmpty()) {
                Matcher m = CODE.matcher(cell);
                if (!m.find() || !m.group(1).equals(flag.defaultValue())) {
                    problems.add("--" + flag.name() + ": documented default \"" + cell + "\", --help says `"
                            + flag.defaultValue() + "`");
                }
            } else if (!cell.startsWith("empty")) {
                problems.add("--" + flag.name() + ": has no default value; its cell should start with \"empty\": " + cell);
            }
        }
        for (String name : documented.keySet()) {
            if (declared.stream().noneMatch(f -> f.name().equals(name))) {
                problems.add("--" + name + " is documented but the operator declares no such flag");
            }
        }
        assertEquals(List.of(), problems);
    }

    @Test
    void shouldPrintTheDocumentedDefaultsInHelp() throws IOException {
        String help = OperatorConfig.help();
        for (Flags.Flag flag : FlagTable.declare().declared()) {
            if (!flag.bool() && !flag.defaultValue().isEmpty()) {
                assertTrue(help.contains("(default " + flag.defaultValue() + ")"), flag.name());
            }
        }
        assertTrue(rows().size() >= 40, "the table was read");
    }

    /** Flag name to its trimmed default cell, from the table under {@code ## Flags}. */
    private static Map<String, String> rows() throws IOException {
        Map<String, String> rows = new LinkedHashMap<>();
        boolean in = false;
        for (String line : Files.readAllLines(PAGE)) {
            if (line.startsWith("## ")) {
                in = line.equals("## Flags");
            } else if (in) {
                Matcher m = ROW.matcher(line);
                if (m.matches() && rows.put(m.group(1), m.group(2).strip()) != null) {
                    throw new AssertionError("--" + m.group(1) + " has two rows");
                }
            }
        }
        return rows;
    }
}
