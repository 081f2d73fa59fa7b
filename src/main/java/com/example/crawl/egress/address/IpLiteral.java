package com.example.crawl.egress.address;

import java.util.Arrays;
import java.util.Optional;

/**
 * An IPv4 dotted quad or an IPv6 literal, parsed by shape (never through a name lookup) and
 * written in one canonical form: dotted quad without leading zeros, or RFC 5952 for IPv6 (lower
 * case, no leading zeros, the first longest run of two or more zero groups as {@code ::}), an
 * IPv4-mapped IPv6 address as its IPv4 one. So one address reads the same whichever echo said it.
 */
public final class IpLiteral {

    private IpLiteral() {
    }

    /** The canonical form of {@code text} if it is an address literal; empty for anything else. */
    public static Optional<String> canonical(String text) {
        if (text.indexOf(':') >= 0) {
            int[] groups = ipv6(text);
            if (groups == null) {
                return Optional.empty();
            }
            return Optional.of(mapped(groups) ? (groups[6] >> 8) + "." + (groups[6] & 0xff) + "." + (groups[7] >> 8)
                    + "." + (groups[7] & 0xff) : compressed(groups));
        }
        int[] octets = ipv4(text);
        return octets == null ? Optional.empty()
                : Optional.of(octets[0] + "." + octets[1] + "." + octets[2] + "." + octets[3]);
    }

    /**
     * The network {@code text} is in, as a prefix: {@code a.b.c.0/24} for IPv4, the first three
     * groups and {@code ::/48} for IPv6 (an IPv4-mapped one counts as IPv4); empty for anything
     * that is not an address literal.
     */
    public static Optional<String> network(String text) {
        return canonical(text).map(address -> {
            if (address.indexOf(':') < 0) {
                return address.substring(0, address.lastIndexOf('.')) + ".0/24";
            }
            int[] g = ipv6(address);
            return Integer.toHexString(g[0]) + ":" + Integer.toHexString(g[1]) + ":" + Integer.toHexString(g[2])
                    + "::/48";
        });
    }

    /** The four octets of a dotted quad (no leading zeros, which some parsers read as octal), or null. */
    private static int[] ipv4(String text) {
        String[] parts = text.split("\\.", -1);
        if (parts.length != 4) {
            return null;
        }
        int[] octets = new int[4];
        for (int i = 0; i < 4; i++) {
            String p = parts[i];
            if (p.isEmpty() || p.length() > 3 || !p.chars().allMatch(c -> c >= '0' && c <= '9')
                    || p.length() > 1 && p.charAt(0) == '0') {
                return null;
            }
            octets[i] = Integer.parseInt(p);
            if (octets[i] > 255) {
                return null;
            }
        }
        return octets;
    }

    /** The eight 16-bit groups of an IPv6 literal ({@code ::} and a dotted-quad tail allowed), or null. */
    private static int[] ipv6(String text) {
        int gap = text.indexOf("::");
        if (gap >= 0 && text.indexOf("::", gap + 1) >= 0) {
            return null;
        }
        int[] front = groups(gap >= 0 ? text.substring(0, gap) : text, gap < 0);
        int[] back = groups(gap >= 0 ? text.substring(gap + 2) : "", true);
        if (front == null || back == null) {
            return null;
        }
        int given = front.length + back.length;
        if (gap < 0 ? given != 8 : given > 7) {
            return null;
        }
        int[] all = new int[8];
        System.arraycopy(front, 0, all, 0, front.length);
        System.arraycopy(back, 0, all, 8 - back.length, back.length);
        return all;
    }

    /**
     * The groups of one side of a {@code ::}; a last part that is a dotted quad counts as two, if
     * the side ends the address ({@code last}).
     */
    private static int[] groups(String side, boolean last) {
        if (side.isEmpty()) {
            return new int[0];
        }
        String[] parts = side.split(":", -1);
        int[] out = new int[parts.length + 1];
        int n = 0;
        for (int i = 0; i < parts.length; i++) {
            String p = parts[i];
            if (last && i == parts.length - 1 && p.indexOf('.') >= 0) {
                int[] v4 = ipv4(p);
                if (v4 == null) {
                    return null;
                }
                out[n++] = v4[0] << 8 | v4[1];
                out[n++] = v4[2] << 8 | v4[3];
                continue;
            }
            if (p.isEmpty() || p.length() > 4 || !p.chars().allMatch(IpLiteral::hex)) {
                return null;
            }
            out[n++] = Integer.parseInt(p, 16);
        }
        return Arrays.copyOf(out, n);
    }

    /** Whether the groups are {@code ::ffff:a.b.c.d}. */
    private static boolean mapped(int[] g) {
        return g[0] == 0 && g[1] == 0 && g[2] == 0 && g[3] == 0 && g[4] == 0 && g[5] == 0xffff;
    }

    /** RFC 5952's text form of eight groups. */
    private static String compressed(int[] groups) {
        int bestStart = -1;
        int bestLength = 1; // a single zero group is not compressed
        for (int i = 0; i < 8; i++) {
            int j = i;
            while (j < 8 && groups[j] == 0) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = Math.max(i, j);
        }
        StringBuilder out = new StringBuilder(39);
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                out.append("::");
                i += bestLength - 1;
                continue;
            }
            if (!out.isEmpty() && out.charAt(out.length() - 1) != ':') {
                out.append(':');
            }
            out.append(Integer.toHexString(groups[i]));
        }
        return out.toString();
    }

    private static boolean hex(int c) {
        return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F';
    }
}
