package com.example.crawl.egress.log;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Keeps the package-info promise: the logging package depends on the JDK and slf4j-api only. */
class LogPackageBoundaryTest {
    private static final Path SOURCES = Path.of("src/main/java/com/example/crawl/egress/log");
    private static final Pattern ALLOWED_IMPORT =
            Pattern.compile("import (static )?(java\\.|org\\.slf4j\\.).*");
    private static final Pattern OTHER_PROJECT_PACKAGE =
            Pattern.compile("com\\.example\\.crawl\\.egress\\.(?!log\\b)\\w+");

    @Test
    void shouldImportNothingButTheJdkAndSlf4j() throws IOException {
        List<String> offending = sourceLines()
                .filter(line -> isForeignImport(line) || OTHER_PROJECT_PACKAGE.matcher(line).find())
                .toList();

        assertEquals(List.of(), offending);
    }

    private static boolean isForeignImport(String line) {
        return line.startsWith("import ") && !ALLOWED_IMPORT.matcher(line).matches();
    }

    private static Stream<String> sourceLines() throws IOException {
        try (Stream<Path> files = Files.list(SOURCES)) {
            List<Path> java = files.filter(f -> f.toString().endsWith(".java")).toList();
            if (java.size() < 5) {
                throw new AssertionError("sources not found under " + SOURCES.toAbsolutePath());
            }
            return java.stream().flatMap(LogPackageBoundaryTest::lines);
        }
    }

    private static Stream<String> lines(Path file) {
        try {
            return Files.readAllLines(file).stream();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
