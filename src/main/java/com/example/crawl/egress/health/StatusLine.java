package com.example.crawl.egress.health;

/**
 * The first line of an HTTP/1.x response.
 *
 * @param code   the three-digit status code
 * @param reason the reason phrase, possibly empty, made safe to show
 */
record StatusLine(int code, String reason) {

    /**
     * Parses {@code HTTP/1.x NNN reason}.
     *
     * @throws ProbeException {@link FailureReason#MalformedResponse} naming what arrived instead
     */
    static StatusLine parse(String line) throws ProbeException {
        boolean http = line.length() >= 12 && line.startsWith("HTTP/1.") && Character.isDigit(line.charAt(7))
                && line.charAt(8) == ' ' && digits(line, 9, 12) && (line.length() == 12 || line.charAt(12) == ' ');
        if (!http) {
            throw new ProbeException(FailureReason.MalformedResponse, "not an HTTP response: \"" + printable(line) + "\"");
        }
        return new StatusLine(Integer.parseInt(line, 9, 12, 10), printable(line.substring(Math.min(13, line.length()))));
    }

    boolean success() {
        return code / 100 == 2;
    }

    /** A 1xx answer other than 101: informational, the real one follows. */
    boolean interim() {
        return code / 100 == 1 && code != 101;
    }

    @Override
    public String toString() {
        return reason.isEmpty() ? Integer.toString(code) : code + " " + reason;
    }

    /** At most 60 characters of {@code s}, with anything outside printable ASCII shown as '?'. */
    static String printable(String s) {
        StringBuilder out = new StringBuilder(Math.min(s.length(), 61));
        for (int i = 0; i < s.length() && i < 60; i++) {
            char c = s.charAt(i);
            out.append(c >= 0x20 && c < 0x7f ? c : '?');
        }
        return s.length() > 60 ? out.append('…').toString() : out.toString();
    }

    private static boolean digits(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            if (!Character.isDigit(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }
}
