package com.example.crawl.egress.config;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A strict command-line flag set: every flag is declared with a default and a meaning, given
 * only as {@code --name=value} (booleans also as a bare {@code --name}), and converted by typed
 * accessors whose errors name the flag. Unknown flags, positional arguments and a flag given
 * twice are errors. Not thread-safe; used once at start.
 */
final class Flags {

    /** One declared flag. */
    record Flag(String name, String defaultValue, String usage, boolean bool) { }

    private static final Pattern DURATION_PART = Pattern.compile("(\\d+)(ms|s|m|h)");
    private static final Pattern IPV4 = Pattern.compile("(25[0-5]|2[0-4]\\d|1?\\d?\\d)(\\.(25[0-5]|2[0-4]\\d|1?\\d?\\d)){3}");
    /** Hex digits, colons and dots only (an embedded IPv4 tail), at least two colons. */
    private static final Pattern IPV6 = Pattern.compile("(?=(.*:){2})[0-9A-Fa-f:.]+");

    private final Map<String, Flag> declared = new LinkedHashMap<>();
    private final Map<String, String> given = new LinkedHashMap<>();

    Flags define(String name, String defaultValue, String usage) {
        declared.put(name, new Flag(name, defaultValue, usage, false));
        return this;
    }

    Flags defineBool(String name, String usage) {
        declared.put(name, new Flag(name, "false", usage, true));
        return this;
    }

    /** Every declared flag, in declaration order (the order {@code --help} lists them). */
    List<Flag> declared() {
        return List.copyOf(declared.values());
    }

    /** Records the arguments; conversion happens in the typed accessors. */
    void parse(List<String> args) throws ConfigException {
        for (String arg : args) {
            if (!arg.startsWith("--") || arg.length() == 2) {
                throw new ConfigException("unexpected argument \"" + arg + "\": flags are written --name=value");
            }
            int eq = arg.indexOf('=');
            String name = eq < 0 ? arg.substring(2) : arg.substring(2, eq);
            Flag flag = declared.get(name);
            if (flag == null) {
                throw new ConfigException("unknown flag --" + name + " (see --help)");
            }
            if (eq < 0 && !flag.bool()) {
                throw new ConfigException("flag --" + name + " needs a value: write --" + name + "=VALUE");
            }
            if (given.put(name, eq < 0 ? "true" : arg.substring(eq + 1)) != null) {
                throw new ConfigException("flag --" + name + " is given more than once");
            }
        }
    }

    boolean isSet(String name) {
        return given.containsKey(name);
    }

    String string(String name) {
        Flag flag = declared.get(name);
        if (flag == null) {
            throw new IllegalArgumentException("undeclared flag " + name);
        }
        return given.getOrDefault(name, flag.defaultValue());
    }

    boolean bool(String name) throws ConfigException {
        String v = string(name);
        return switch (v) {
            case "true" -> true;
            case "false" -> false;
            default -> throw invalid(name, v, "expected true or false");
        };
    }

    int integer(String name, int min, int max) throws ConfigException {
        String v = string(name);
        int n;
        try {
            n = Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw invalid(name, v, "not an integer");
        }
        if (n < min || n > max) {
            throw invalid(name, v, "must be between " + min + " and " + max);
        }
        return n;
    }

    /** A duration such as {@code 500ms}, {@code 10s}, {@code 5m}, {@code 1h30m}, or {@code 0}. */
    Duration duration(String name) throws ConfigException {
        String v = string(name);
        try {
            return parseDuration(v);
        } catch (IllegalArgumentException e) {
            throw invalid(name, v, e.getMessage());
        }
    }

    /**
     * The grammar of every duration the operator reads, flags and the providers config alike:
     * {@code 0}, or whole numbers of {@code h}, {@code m}, {@code s} and {@code ms} written one
     * after the other ({@code 1h30m}).
     *
     * @throws IllegalArgumentException saying what is wrong, without the value
     */
    static Duration parseDuration(String v) {
        if (v.equals("0")) {
            return Duration.ZERO;
        }
        Matcher m = DURATION_PART.matcher(v);
        Duration total = Duration.ZERO;
        int end = 0;
        while (m.find() && m.start() == end) {
            try {
                long n = Long.parseLong(m.group(1));
                total = total.plus(switch (m.group(2)) {
                    case "ms" -> Duration.ofMillis(n);
                    case "s" -> Duration.ofSeconds(n);
                    case "m" -> Duration.ofMinutes(n);
                    default -> Duration.ofHours(n);
                });
            } catch (NumberFormatException | ArithmeticException e) {
                // A number past a long, or hours past what a Duration holds.
                throw new IllegalArgumentException("number too large");
            }
            end = m.end();
        }
        if (end == 0 || end != v.length()) {
            throw new IllegalArgumentException("expected a duration such as 500ms, 10s, 5m or 1h30m");
        }
        return total;
    }

    /** A listen address {@code [host]:port}; an empty host means all interfaces. */
    InetSocketAddress address(String name) throws ConfigException {
        String v = string(name);
        int colon = v.lastIndexOf(':');
        if (colon < 0) {
            throw invalid(name, v, "expected [host]:port, for example :8090 or 127.0.0.1:8090");
        }
        String host = v.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(v.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw invalid(name, v, "port is not a number");
        }
        if (port < 0 || port > 65535) {
            throw invalid(name, v, "port must be between 0 and 65535");
        }
        return host.isEmpty() ? new InetSocketAddress(port) : InetSocketAddress.createUnresolved(host, port);
    }

    /** An absolute http or https URL with a host. */
    URI httpUrl(String name) throws ConfigException {
        String v = string(name);
        try {
            URI uri = new URI(v);
            if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
                throw invalid(name, v, "expected an absolute http:// or https:// URL");
            }
            return uri;
        } catch (URISyntaxException e) {
            throw invalid(name, v, "not a URL: " + e.getReason());
        }
    }

    /**
     * A comma-separated list of IP ranges in CIDR notation ({@code 10.96.0.0/12}, {@code fd00::/8});
     * a bare address means that one address. Empty means none. Only literals are accepted: nothing
     * here is looked up in DNS.
     */
    List<String> cidrs(String name) throws ConfigException {
        List<String> out = new ArrayList<>();
        for (String item : items(name)) {
            int slash = item.indexOf('/');
            String address = slash < 0 ? item : item.substring(0, slash);
            boolean v4 = IPV4.matcher(address).matches();
            if (!v4 && !IPV6.matcher(address).matches()) {
                throw invalid(name, string(name), "\"" + item + "\" is not an IPv4 or IPv6 address or CIDR");
            }
            try {
                InetAddress.getByName(address); // a literal: parsed, never resolved
            } catch (UnknownHostException e) {
                throw invalid(name, string(name), "\"" + item + "\" is not an IP address");
            }
            if (slash >= 0) {
                int max = v4 ? 32 : 128;
                String prefix = item.substring(slash + 1);
                if (!prefix.matches("\\d{1,3}") || Integer.parseInt(prefix) > max) {
                    throw invalid(name, string(name), "\"" + item + "\" needs a prefix length between 0 and " + max);
                }
            }
            out.add(item);
        }
        return List.copyOf(out);
    }

    /** A comma-separated list of ports ({@code 443}) and port ranges ({@code 8000-8100}); at least one. */
    List<String> ports(String name) throws ConfigException {
        List<String> out = new ArrayList<>();
        for (String item : items(name)) {
            String[] bounds = item.split("-", -1);
            if (bounds.length > 2 || !Arrays.stream(bounds).allMatch(b -> b.matches("\\d{1,5}"))) {
                throw invalid(name, string(name), "\"" + item + "\" is not a port or a range such as 8000-8100");
            }
            int low = Integer.parseInt(bounds[0]);
            int high = Integer.parseInt(bounds[bounds.length - 1]);
            if (low < 1 || high > 65535 || low > high) {
                throw invalid(name, string(name), "\"" + item + "\" is outside 1-65535 or an empty range");
            }
            out.add(item);
        }
        if (out.isEmpty()) {
            throw invalid(name, string(name), "at least one port is needed");
        }
        return List.copyOf(out);
    }

    private List<String> items(String name) {
        return Arrays.stream(string(name).split(",")).map(String::strip).filter(i -> !i.isEmpty()).toList();
    }

    /** One of the given words. */
    String oneOf(String name, List<String> allowed) throws ConfigException {
        String v = string(name);
        if (!allowed.contains(v)) {
            throw invalid(name, v, "expected one of " + String.join(", ", allowed));
        }
        return v;
    }

    static ConfigException invalid(String name, String value, String why) {
        return new ConfigException("invalid value \"" + value + "\" for flag --" + name + ": " + why);
    }

    /** The {@code --help} text: every flag with its default and meaning, in declaration order. */
    String usage() {
        StringBuilder out = new StringBuilder();
        for (Flag f : declared.values()) {
            String head = f.bool() ? "  --" + f.name() : "  --" + f.name() + "=" + placeholder(f);
            out.append(head).append('\n');
            out.append("        ").append(f.usage());
            if (!f.defaultValue().isEmpty() && !f.bool()) {
                out.append(" (default ").append(f.defaultValue()).append(')');
            }
            out.append('\n');
        }
        return out.toString();
    }

    private static String placeholder(Flag f) {
        return f.defaultValue().matches("\\d+(ms|s|m|h)|0") ? "DURATION"
                : f.defaultValue().matches("\\d+") ? "N" : "VALUE";
    }
}
