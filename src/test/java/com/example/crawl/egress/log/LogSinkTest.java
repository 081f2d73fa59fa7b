package com.example.crawl.egress.log;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Clock;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.event.Level;
import org.slf4j.helpers.BasicMDCAdapter;

class LogSinkTest {

    /** A stream whose every print fails, as a closed or broken stdout might. */
    private static final class FailingStream extends PrintStream {
        FailingStream() {
            super(OutputStream.nullOutputStream());
        }

        @Override
        public void print(String s) {
            throw new IllegalStateException("stream broken");
        }
    }

    @Test
    void shouldReportOnFallbackAndNotThrowWhenTheStreamFails() {
        ByteArrayOutputStream fallback = new ByteArrayOutputStream();
        LogSettings settings = new LogSettings(LogFormat.JSON, Level.INFO, new FailingStream(),
                Clock.fixed(CapturedLog.NOW, ZoneOffset.UTC));
        LogSink sink = new LogSink(settings, CapturedLog.utf8(fallback));
        Logger logger = new EgressLoggerFactory(sink, new BasicMDCAdapter()).getLogger("a.b");

        assertDoesNotThrow(() -> logger.warn("Secret-free message"));

        assertEquals(
                "Dropped log event logger=a.b error=java.lang.IllegalStateException\n",
                fallback.toString());
    }

    /** An output stream whose writes fail with an IOException, which a PrintStream swallows. */
    private static final class BrokenPipe extends OutputStream {
        int attempts;

        @Override
        public void write(int b) throws IOException {
            attempts++;
            throw new IOException("Broken pipe");
        }
    }

    @Test
    void shouldReportAFailingOutputStreamOnceOnFallback() {
        ByteArrayOutputStream fallback = new ByteArrayOutputStream();
        BrokenPipe pipe = new BrokenPipe();
        LogSink sink = new LogSink(new LogSettings(LogFormat.JSON, Level.INFO, new PrintStream(pipe),
                Clock.fixed(CapturedLog.NOW, ZoneOffset.UTC)), CapturedLog.utf8(fallback));
        Logger logger = new EgressLoggerFactory(sink, new BasicMDCAdapter()).getLogger("a.b");

        assertDoesNotThrow(() -> {
            logger.warn("First");
            logger.warn("Second");
            logger.warn("Third");
        });

        assertTrue(pipe.attempts >= 3, "every line was tried");
        assertEquals(LogSink.OUTPUT_FAILED + "\n", fallback.toString());
    }

    @Test
    void shouldReportAgainWhenReconfiguredWithAnotherFailingStream() {
        ByteArrayOutputStream fallback = new ByteArrayOutputStream();
        Clock clock = Clock.fixed(CapturedLog.NOW, ZoneOffset.UTC);
        LogSink sink = new LogSink(new LogSettings(LogFormat.TEXT, Level.INFO, new PrintStream(new BrokenPipe()), clock),
                CapturedLog.utf8(fallback));
        sink.emit(new LogEvent(Level.INFO, "x", "m", null, null, null));
        sink.emit(new LogEvent(Level.INFO, "x", "m", null, null, null));

        sink.configure(new LogSettings(LogFormat.TEXT, Level.INFO, new PrintStream(new BrokenPipe()), clock));
        sink.emit(new LogEvent(Level.INFO, "x", "m", null, null, null));

        assertEquals(LogSink.OUTPUT_FAILED + "\n" + LogSink.OUTPUT_FAILED + "\n", fallback.toString());
    }

    @Test
    void shouldSayNothingOnFallbackWhileTheStreamWorks() {
        CapturedLog log = new CapturedLog(LogFormat.JSON, Level.INFO);

        log.logger(CapturedLog.OWN).info("Fine");

        assertEquals(1, log.lines().size());
        assertEquals("", log.fallbackOutput());
    }

    @Test
    void shouldNotThrowWhenTheClockFails() {
        ByteArrayOutputStream fallback = new ByteArrayOutputStream();
        Clock broken = new Clock() {
            @Override
            public ZoneOffset getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(java.time.ZoneId zone) {
                return this;
            }

            @Override
            public java.time.Instant instant() {
                throw new UnsupportedOperationException("no time");
            }
        };
        LogSink sink = new LogSink(new LogSettings(LogFormat.TEXT, Level.INFO,
                CapturedLog.utf8(new ByteArrayOutputStream()), broken), CapturedLog.utf8(fallback));

        assertDoesNotThrow(() -> sink.emit(new LogEvent(Level.INFO, "x", "m", null, null, null)));

        assertEquals("Dropped log event logger=x error=java.lang.UnsupportedOperationException\n",
                fallback.toString());
    }
}
