package com.example.crawl.egress.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class StatusLineTest {

    @Test
    void shouldParseHttp11AndHttp10StatusLines() throws ProbeException {
        assertEquals(new StatusLine(204, "No Content"), StatusLine.parse("HTTP/1.1 204 No Content"));
        assertEquals(new StatusLine(200, "Connection established"), StatusLine.parse("HTTP/1.0 200 Connection established"));
    }

    @Test
    void shouldAcceptAStatusLineWithoutReasonPhrase() throws ProbeException {
        assertEquals(new StatusLine(407, ""), StatusLine.parse("HTTP/1.1 407"));
        assertEquals("407", StatusLine.parse("HTTP/1.1 407").toString());
    }

    @Test
    void shouldRefuseWhatIsNotAnHttp1StatusLine() {
        for (String line : new String[] {"SSH-2.0-OpenSSH_9.2p1", "", "HTTP/2 200", "HTTP/1.1 20", "HTTP/1.1 2x4 No",
                "HTTP/1.1 2040", "http/1.1 200 OK", "HTTP/1.1  200 OK"}) {
            ProbeException e = assertThrows(ProbeException.class, () -> StatusLine.parse(line), line);
            assertEquals(FailureReason.MalformedResponse, e.reason());
        }
    }

    @Test
    void shouldShowOnlyAShortPrintablePartOfGarbage() {
        ProbeException e = assertThrows(ProbeException.class, () -> StatusLine.parse("\u0016\u0003\u0001" + "x".repeat(200)));

        assertTrue(e.getMessage().startsWith("not an HTTP response: \"???xxx"), e.getMessage());
        assertTrue(e.getMessage().length() < 100, e.getMessage());
    }

    @Test
    void shouldTreatOnly1xxOtherThan101AsInterim() throws ProbeException {
        assertTrue(StatusLine.parse("HTTP/1.1 103 Early Hints").interim());
        assertTrue(StatusLine.parse("HTTP/1.1 100 Continue").interim());
        assertFalse(StatusLine.parse("HTTP/1.1 101 Switching Protocols").interim());
        assertFalse(StatusLine.parse("HTTP/1.1 204 No Content").interim());
    }

    @Test
    void shouldCallOnly2xxSuccessForConnect() throws ProbeException {
        assertTrue(StatusLine.parse("HTTP/1.1 200 Connection established").success());
        assertFalse(StatusLine.parse("HTTP/1.1 302 Found").success());
        assertFalse(StatusLine.parse("HTTP/1.1 407 Proxy Authentication Required").success());
    }

    @Test
    void shouldShowSixtyCharactersOfPrintableAsciiAndMarkTheCut() {
        assertEquals("x".repeat(60), StatusLine.printable("x".repeat(60)));
        assertEquals("x".repeat(60) + "…", StatusLine.printable("x".repeat(61)));
        assertEquals(" ~?", StatusLine.printable(" ~\u007f"), "space and tilde are printable, DEL is not");
        assertEquals("?", StatusLine.printable("\u001f"));
    }
}
