package com.example.crawl.egress.health;

import com.example.crawl.egress.address.IpLiteral;
import java.nio.charset.StandardCharsets;

/** The body of an egress echo's answer, read as the caller's address; nothing else is accepted. */
final class EchoBody {

    /** Bodies longer than this are refused before they are read to the end. */
    static final int MAX_BYTES = 256;

    private EchoBody() {
    }

    /**
     * Reads an echo's body: its first line, without surrounding blanks, must be an IPv4 or IPv6
     * literal ({@link IpLiteral}, read by its shape, so nothing an echo says is ever looked up in
     * DNS); later lines are ignored. The address comes back in its canonical form.
     */
    static EchoResult read(byte[] body) {
        String text = new String(body, StandardCharsets.ISO_8859_1);
        int newline = text.indexOf('\n');
        String line = (newline < 0 ? text : text.substring(0, newline)).strip();
        return IpLiteral.canonical(line).<EchoResult>map(EchoResult.Learned::new).orElseGet(() -> new EchoResult.Failed(
                "the echo's answer is not an IP address: \"" + StatusLine.printable(line) + "\""));
    }
}
