package com.example.crawl.egress.discovery;

/**
 * The API's routes. Paths are matched exactly as sent (the raw path: no percent-decoding, no
 * {@code .}/{@code ..} or {@code //} folding, no trailing-slash redirect), so that what is routed
 * is what was written and an encoded trick cannot reach a route by another spelling. The
 * {@code {id}} segment is any non-empty text without {@code /}; ids the store never issued are
 * simply unknown leases.
 */
enum Route {
    HEALTHZ("GET", "/healthz"),
    LIST_PROXIES("GET", "/v1/proxies"),
    ACQUIRE_LEASE("POST", "/v1/leases"),
    RELEASE_LEASE("DELETE", "/v1/leases/{id}"),
    REPORT_LEASE("POST", "/v1/leases/{id}/report"),
    /** A proxy's own call, for its auth helper: authenticated by the proxy's key, not a bearer token. */
    LEASE_LIST("GET", "/v1/proxies/{namespace}/{name}/leases");

    /** What the request log says for a path that matches no route. */
    static final String UNMATCHED = "unmatched";

    private static final String LEASE_PREFIX = "/v1/leases/";
    private static final String REPORT_SUFFIX = "/report";
    private static final String PROXY_PREFIX = "/v1/proxies/";
    private static final String LIST_SUFFIX = "/leases";

    private final String method;
    private final String pattern;

    Route(String method, String pattern) {
        this.method = method;
        this.pattern = pattern;
    }

    String method() {
        return method;
    }

    /** The path pattern, as logged and documented: {@code /v1/leases/{id}/report}. */
    String pattern() {
        return pattern;
    }

    /** What a request's method and raw path resolve to. */
    static RouteMatch match(String method, String rawPath) {
        Route route = byPath(rawPath);
        if (route == null) {
            return new RouteMatch.NotFound();
        }
        return route.method.equals(method) ? new RouteMatch.Found(route) : new RouteMatch.WrongMethod(route);
    }

    /** The pattern {@code rawPath} falls under whatever the method, or {@link #UNMATCHED}; never the path itself. */
    static String patternOf(String rawPath) {
        Route route = byPath(rawPath);
        return route == null ? UNMATCHED : route.pattern;
    }

    /** Whether the path is served without a token: {@code /healthz} only. */
    static boolean isOpen(String rawPath) {
        return HEALTHZ.pattern.equals(rawPath);
    }

    /** Whether the path's route checks its caller itself, without a bearer token: {@link #LEASE_LIST}. */
    static boolean authenticatesItself(String rawPath) {
        return byPath(rawPath) == LEASE_LIST;
    }

    /** The {@code namespace/name} of a path that matched {@link #LEASE_LIST}. */
    static String proxyKey(String rawPath) {
        return rawPath.substring(PROXY_PREFIX.length(), rawPath.length() - LIST_SUFFIX.length());
    }

    /** The {@code {id}} segment of a path that matched {@link #RELEASE_LEASE} or {@link #REPORT_LEASE}. */
    static String leaseId(String rawPath) {
        int end = rawPath.indexOf('/', LEASE_PREFIX.length());
        return rawPath.substring(LEASE_PREFIX.length(), end < 0 ? rawPath.length() : end);
    }

    private static Route byPath(String rawPath) {
        if (rawPath == null) {
            return null;
        }
        return switch (rawPath) {
            case "/healthz" -> HEALTHZ;
            case "/v1/proxies" -> LIST_PROXIES;
            case "/v1/leases" -> ACQUIRE_LEASE;
            default -> rawPath.startsWith(PROXY_PREFIX) ? listRoute(rawPath) : leaseRoute(rawPath);
        };
    }

    /** {@code /v1/proxies/<namespace>/<name>/leases}, both segments non-empty. */
    private static Route listRoute(String rawPath) {
        if (!rawPath.endsWith(LIST_SUFFIX) || rawPath.length() < PROXY_PREFIX.length() + LIST_SUFFIX.length()) {
            return null;
        }
        String key = rawPath.substring(PROXY_PREFIX.length(), rawPath.length() - LIST_SUFFIX.length());
        int slash = key.indexOf('/');
        return slash > 0 && slash < key.length() - 1 && key.indexOf('/', slash + 1) < 0 ? LEASE_LIST : null;
    }

    private static Route leaseRoute(String rawPath) {
        if (!rawPath.startsWith(LEASE_PREFIX)) {
            return null;
        }
        int start = LEASE_PREFIX.length();
        int slash = rawPath.indexOf('/', start);
        if (slash < 0) {
            return rawPath.length() > start ? RELEASE_LEASE : null;
        }
        return slash > start && rawPath.substring(slash).equals(REPORT_SUFFIX) ? REPORT_LEASE : null;
    }
}
