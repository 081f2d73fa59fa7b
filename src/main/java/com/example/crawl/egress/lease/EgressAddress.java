package com.example.crawl.egress.lease;

import java.util.Arrays;
import java.util.Optional;

/**
 * IP address literals as the lease store reads them: strictly by their shape, never through a
 * name lookup, since an identity comes from a status anyone with write access could have edited.
 */
final class EgressAddress {

    private EgressAddress() {
    }

    /**
     * The network {@code text} is in, as a prefix string: {@code a.b.c.0/24} for IPv4, the first
     * three groups and {@code ::/48} for IPv6; empty for anything that is not an address literal.
     */
    static Optional<String> network(String text) {
        if (text.indexOf(':') >= 0) {
            int[] groups = ipv6(text);
            return groups == null ? Optional.empty()
                    : Optional.of(Integer.toHexString(groups[0]) + ":" + Integer.toHexString(groups[1]) + ":"
                            + Integer.toHexString(groups[2]) + "::/48");
        }
        int[] octets = ipv4(text);
        return octets == null ? Optional.empty() : Optional.of(octets[0] + "." + octets[1] + "." + octets[2] + ".0/24");
    }

    /** The four octets of a dotted-quad literal, or null. */
    static int[] ipv4(String text) {
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
    static int[] ipv6(String text) {
        int gap = text.indexOf("::");
        if (gap >= 0 && text.indexOf("::", gap + 1) >= 0) {
            return null;
        }
        String head = gap >= 0 ? text.substring(0, gap) : text;
        String tail = gap >= 0 ? text.substring(gap + 2) : "";
        int[] front = groups(head, gap < 0);
        int[] back = groups(tail, true);
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
            if (p.isEmpty() || p.length() > 4 || !p.chars().allMatch(EgressAddress::hex)) {
                return null;
            }
            out[n++] = Integer.parseInt(p, 16);
        }
        return Arrays.copyOf(out, n);
    }

    private static boolean hex(int c) {
        return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F';
    }
}
