package com.example.crawl.egress.health;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/** The body of an egress echo's answer, read as the caller's address; nothing else is accepted. */
final class EchoBody {

    /** A dotted quad, each part 0 to 255 without leading zeros (which some parsers read as octal). */
    private static final Pattern IPV4 =
            Pattern.compile("(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(\\.(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}");
    /** Hex digits, colons and dots (an embedded IPv4 tail) only, at least two colons: never a host name. */
    private static final Pattern IPV6 = Pattern.compile("(?=(.*:){2})[0-9A-Fa-f:.]{2,45}");

    /** Bodies longer than this are refused before they are read to the end. */
    static final int MAX_BYTES = 256;

    private EchoBody() {
    }

    /**
     * Reads an echo's body: its first line, without surrounding blanks, must be an IPv4 or IPv6
     * literal; later lines are ignored. The text is checked to be a literal before it is parsed,
     * so nothing an echo says is ever looked up in DNS.
     */
    static EchoResult read(byte[] body) {
        String text = new String(body, StandardCharsets.ISO_8859_1);
        int newline = text.indexOf('\n');
        String line = (newline < 0 ? text : text.substring(0, newline)).strip();
        if (!IPV4.matcher(line).matches() && !IPV6.matcher(line).matches()) {
            return notAnAddress(line);
        }
        InetAddress address;
        try {
            address = InetAddress.getByName(line); // a literal: parsed, never resolved
        } catch (UnknownHostException e) {
            return notAnAddress(line);
        }
        return new EchoResult.Learned(address instanceof Inet6Address v6
                ? compressed(v6.getAddress()) : address.getHostAddress());
    }

    private static EchoResult notAnAddress(String line) {
        return new EchoResult.Failed("the echo's answer is not an IP address: \"" + StatusLine.printable(line) + "\"");
    }

    /** RFC 5952's text form: lower case, no leading zeros, the first longest run of two or more zero groups as "::". */
    private static String compressed(byte[] bytes) {
        int[] groups = new int[8];
        for (int i = 0; i < 8; i++) {
            groups[i] = (bytes[2 * i] & 0xff) << 8 | bytes[2 * i + 1] & 0xff;
        }
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
}
