package com.example.crawl.egress.local;

import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * How fast {@code java -jar target/egress-proxies-operator.jar --local} comes up, as a user runs
 * it (no extra flags but a fresh {@code --local-state-dir} per start): from exec to the discovery
 * API answering {@code GET /healthz}, and to {@code GET /v1/proxies?healthy=true} (with the token
 * the banner prints) listing the three sample Proxies. Then the operator's resident set size from
 * {@code /proc/<pid>/status}, a SIGTERM by pid, the exit awaited, and a check that none of its
 * Squids outlived it.
 *
 * <p>Beside it, as the floor of any start: {@code java -jar <jar> --help}, which pays the JVM's
 * start and the opening of the jar but runs nothing.
 *
 * <p>Needs the fixed ports local mode uses (discovery 127.0.0.1:8090, probe target :8091): run it
 * under {@code flock /tmp/egress-it.lock}.
 *
 * <p>Usage: {@code LocalStartBenchmark [starts=5] [jar=target/egress-proxies-operator.jar] [jvm flag...]};
 * JVM flags, if any, go before {@code -jar} (to try one out: users run the jar without any).
 */
public final class LocalStartBenchmark {

    private static final int DISCOVERY_PORT = 8090;
    private static final long GIVE_UP_NANOS = TimeUnit.SECONDS.toNanos(60);
    private static final long POLL_MILLIS = 10;
    private static final Pattern TOKEN = Pattern.compile("^\\s*discovery token\\s+(\\S+)\\s*$", Pattern.MULTILINE);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private LocalStartBenchmark() {
    }

    /**
     * One start: milliseconds from exec to serving and to three Ready, the operator's CPU time
     * (user and system, all threads) at each, and the RSS once Ready.
     */
    private record Start(double servingMs, double readyMs, double servingCpuMs, double readyCpuMs, long rssKiB,
            int exitCode, int squids) { }

    public static void main(String[] args) throws Exception {
        int starts = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        Path jar = Path.of(args.length > 1 ? args[1] : "target/egress-proxies-operator.jar");
        List<String> flags = args.length > 2 ? List.of(args).subList(2, args.length) : List.of();
        System.out.println("machine: " + Runtime.getRuntime().availableProcessors() + " cores, " + cpuModel()
                + ", load " + loadAverage() + ", java " + System.getProperty("java.version") + ", JVM flags " + flags);

        List<Double> floor = new ArrayList<>();
        for (int i = 0; i < starts; i++) {
            floor.add(help(jar, flags));
        }
        List<Start> runs = new ArrayList<>();
        for (int i = 0; i < starts; i++) {
            Start s = start(jar, flags);
            runs.add(s);
            System.out.printf("start %d: serving %.0f ms (CPU %.0f ms), three Ready %.0f ms (CPU %.0f ms), RSS %d MiB,"
                    + " exit %d, %d child processes (Squids, auth helpers; none left)%n", i + 1, s.servingMs(),
                    s.servingCpuMs(), s.readyMs(), s.readyCpuMs(), s.rssKiB() / 1024, s.exitCode(), s.squids());
        }
        System.out.printf("%nfloor (java -jar --help)  %s%n", summary(floor, "ms"));
        System.out.printf("exec -> discovery serving %s%n", summary(runs.stream().map(Start::servingMs).toList(), "ms"));
        System.out.printf("exec -> three Ready       %s%n", summary(runs.stream().map(Start::readyMs).toList(), "ms"));
        System.out.printf("operator CPU to serving   %s%n",
                summary(runs.stream().map(Start::servingCpuMs).toList(), "ms"));
        System.out.printf("operator CPU to Ready     %s%n", summary(runs.stream().map(Start::readyCpuMs).toList(), "ms"));
        System.out.printf("RSS after three Ready     %s%n",
                summary(runs.stream().map(s -> s.rssKiB() / 1024.0).toList(), "MiB"));
        System.out.println("load after: " + loadAverage());
    }

    private static double help(Path jar, List<String> flags) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command(jar, flags, "--help"))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectErrorStream(true);
        long t0 = System.nanoTime();
        Process p = pb.start();
        p.waitFor();
        return (System.nanoTime() - t0) / 1e6;
    }

    private static Start start(Path jar, List<String> flags) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("local-start");
        Path state = dir.resolve("state");
        Path output = dir.resolve("operator.out");
        ProcessBuilder pb = new ProcessBuilder(command(jar, flags, "--local", "--local-state-dir=" + state))
                .redirectErrorStream(true).redirectOutput(output.toFile());
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        pb.environment().remove("DISCOVERY_TOKEN");
        long t0 = System.nanoTime();
        Process p = pb.start();
        try {
            awaitUntil(p, output, () -> status("/healthz", null).orElse(0) == 200, "discovery serving");
            double serving = (System.nanoTime() - t0) / 1e6;
            double servingCpu = cpuMillis(p.pid());
            String token = awaitToken(p, output);
            awaitUntil(p, output, () -> healthyCount(token) == 3, "three Ready Proxies");
            double ready = (System.nanoTime() - t0) / 1e6;
            double readyCpu = cpuMillis(p.pid());
            long rss = rssKiB(p.pid());
            List<ProcessHandle> squids = p.descendants().toList();
            p.destroy(); // SIGTERM
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the operator did not stop within 30 s of SIGTERM");
            }
            for (ProcessHandle squid : squids) {
                squid.onExit().get(5, TimeUnit.SECONDS);
            }
            List<ProcessHandle> left = squids.stream().filter(ProcessHandle::isAlive).toList();
            if (!left.isEmpty()) {
                left.forEach(ProcessHandle::destroyForcibly);
                throw new IllegalStateException("Squids outlived the operator: " + left);
            }
            return new Start(serving, ready, servingCpu, readyCpu, rss, p.exitValue(), squids.size());
        } catch (Exception e) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            throw new IllegalStateException(e.getMessage() + "; operator output:\n" + read(output), e);
        } finally {
            deleteTree(dir);
        }
    }

    private interface Check {
        boolean holds() throws IOException;
    }

    private static void awaitUntil(Process p, Path output, Check check, String what)
            throws IOException, InterruptedException {
        long end = System.nanoTime() + GIVE_UP_NANOS;
        while (!check.holds()) {
            if (p.waitFor(POLL_MILLIS, TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("the operator exited (" + p.exitValue() + ") before " + what);
            }
            if (System.nanoTime() - end > 0) {
                throw new IllegalStateException("no " + what + " within 60 s");
            }
        }
    }

    private static String awaitToken(Process p, Path output) throws IOException, InterruptedException {
        String[] token = new String[1];
        awaitUntil(p, output, () -> {
            Matcher m = TOKEN.matcher(read(output));
            if (m.find()) {
                token[0] = m.group(1);
                return true;
            }
            return false;
        }, "the banner's discovery token");
        return token[0];
    }

    private static int healthyCount(String token) throws IOException {
        Optional<String> body = get("/v1/proxies?healthy=true", token).filter(r -> r.startsWith("HTTP/1.1 200"))
                .map(r -> r.substring(r.indexOf("\r\n\r\n") + 4));
        int n = 0; // the sample Proxies only: the sample pool's members come later
        for (var p : body.map(b -> JSON.readTree(b).path("proxies")).orElse(JSON.createArrayNode())) {
            n += SampleProxies.SAMPLES.containsKey(p.path("name").asText()) ? 1 : 0;
        }
        return n;
    }

    private static Optional<Integer> status(String path, String token) {
        return get(path, token).map(r -> Integer.parseInt(r.substring(9, 12)));
    }

    /** One HTTP/1.1 request on a new connection; the whole response, or empty when none came. */
    private static Optional<String> get(String path, String token) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", DISCOVERY_PORT), 1000);
            s.setSoTimeout(5000);
            String request = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                    + (token == null ? "" : "Authorization: Bearer " + token + "\r\n") + "\r\n";
            OutputStream out = s.getOutputStream();
            out.write(request.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            String response = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return response.startsWith("HTTP/1.1 ") ? Optional.of(response) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** User plus system time of the process so far, all threads, from {@code /proc/<pid>/stat} (100 Hz ticks). */
    private static double cpuMillis(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * 10.0; // utime, stime: fields 14 and 15
    }

    private static long rssKiB(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        throw new IllegalStateException("no VmRSS for pid " + pid);
    }

    private static String summary(List<Double> values, String unit) {
        double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        double median = v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
        return String.format("median %.0f %s (min %.0f, max %.0f) of %d: %s", median, unit, v[0], v[v.length - 1],
                v.length, Arrays.toString(values.stream().mapToLong(Math::round).toArray()));
    }

    private static List<String> command(Path jar, List<String> flags, String... args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(flags);
        command.addAll(List.of("-jar", jar.toString()));
        command.addAll(List.of(args));
        return command;
    }

    private static String cpuModel() throws IOException {
        return Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
                .map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst().orElse("unknown CPU");
    }

    private static String loadAverage() throws IOException {
        return Files.readString(Path.of("/proc/loadavg")).trim();
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
