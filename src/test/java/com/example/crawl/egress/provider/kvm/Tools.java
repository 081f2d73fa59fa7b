package com.example.crawl.egress.provider.kvm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** Runs the command-line tools the kvm ITs check our output with. */
final class Tools {

    private Tools() {
    }

    /** Whether {@code tool} is an executable on the PATH. */
    static boolean onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return false;
    }

    /** {@code command}'s standard output; fails the test unless it exits 0 within 30 s. */
    static String run(String... command) throws IOException, InterruptedException {
        Result r = exec(command);
        assertEquals(0, r.exit(), () -> String.join(" ", command) + ": " + r.stderr());
        return r.stdout();
    }

    record Result(int exit, String stdout, String stderr) { }

    static Result exec(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).start();
        p.getOutputStream().close();
        String out;
        String err;
        try (var stdout = p.getInputStream(); var stderr = p.getErrorStream()) {
            out = new String(stdout.readAllBytes(), StandardCharsets.UTF_8);
            err = new String(stderr.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), () -> String.join(" ", command) + " did not finish");
        return new Result(p.exitValue(), out, err);
    }
}
