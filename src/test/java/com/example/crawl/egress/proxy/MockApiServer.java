package com.example.crawl.egress.proxy;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@link MockCluster} as a process of its own, its store indexed ({@link MockCluster#startIndexed}),
 * for benchmarks that measure the operator in another JVM: prints {@code ready <master URL>}, then takes commands on stdin, one a line:
 * <ul>
 * <li>{@code reset}: forgets the recorded requests (stored objects stay);
 * <li>{@code requests <prefix>}: prints {@code requests <verb> <resource>=<count> ...}, the requests
 *     recorded since the last reset whose User-Agent does not start with {@code <prefix>} (the
 *     benchmark's own), by verb ({@code get}, {@code list}, {@code watch}, {@code create},
 *     {@code update}, {@code patch}, {@code delete}) and resource ({@code proxies/status} for the
 *     subresource), sorted;
 * <li>{@code bodies <verb:resource> <max>}: prints {@code body <path> <body>} for the first
 *     {@code max} such requests since the last reset, any User-Agent, then {@code bodies end}.
 * </ul>
 * Runs until stdin closes.
 */
public final class MockApiServer {

    private MockApiServer() {
    }

    public static void main(String[] args) throws Exception {
        try (MockCluster cluster = MockCluster.startIndexed()) {
            System.out.println("ready " + cluster.client().getMasterUrl());
            System.out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (line.equals("reset")) {
                    cluster.reset();
                    System.out.println("reset");
                } else if (line.startsWith("requests ")) {
                    String ours = line.substring(9).strip();
                    Map<String, Integer> counts = new TreeMap<>();
                    for (MockCluster.Request r : cluster.requests()) {
                        if (!r.userAgent().startsWith(ours)) {
                            counts.merge(kind(r), 1, Integer::sum);
                        }
                    }
                    StringBuilder out = new StringBuilder("requests");
                    counts.forEach((k, v) -> out.append(' ').append(k).append('=').append(v));
                    System.out.println(out);
                } else if (line.startsWith("bodies ")) {
                    String[] words = line.split(" ");
                    cluster.requests().stream().filter(r -> kind(r).equals(words[1]))
                            .limit(Integer.parseInt(words[2]))
                            .forEach(r -> System.out.println("body " + r.path() + " " + r.body().replace('\n', ' ')));
                    System.out.println("bodies end");
                }
                System.out.flush();
            }
        }
    }

    /** {@code <verb>:<resource>}, from the method and the path's segments after group, version and namespace. */
    static String kind(MockCluster.Request r) {
        String[] s = r.path().replaceFirst("^/(api/[^/]+|apis/[^/]+/[^/]+)/?", "").split("/");
        int at = s.length > 2 && s[0].equals("namespaces") ? 2 : 0;
        String resource = s.length > at ? s[at] : "";
        boolean named = s.length > at + 1;
        String sub = s.length > at + 2 ? "/" + s[at + 2] : "";
        String verb = switch (r.method()) {
            case "GET" -> r.isWatch() ? "watch" : named ? "get" : "list";
            case "POST" -> "create";
            case "PUT" -> "update";
            case "PATCH" -> "patch";
            case "DELETE" -> "delete";
            default -> r.method().toLowerCase(java.util.Locale.ROOT);
        };
        return verb + ":" + resource + sub;
    }
}
