package com.example.crawl.egress.log;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.Logger;
import org.slf4j.event.Level;

class LevelThresholdTest {

    @ParameterizedTest(name = "threshold {0}: {1} logger at {2} written={3}")
    @CsvSource({
        "INFO,  own,   INFO,  true",
        "INFO,  own,   DEBUG, false",
        "INFO,  third, INFO,  false",
        "INFO,  third, WARN,  true",
        "DEBUG, own,   DEBUG, true",
        "DEBUG, third, INFO,  true",
        "DEBUG, third, DEBUG, true",
        "DEBUG, third, TRACE, false",
        "TRACE, third, TRACE, true",
        "WARN,  own,   INFO,  false",
        "WARN,  third, WARN,  true",
        "ERROR, own,   WARN,  false",
        "ERROR, third, ERROR, true",
    })
    void shouldWriteOnlyEventsThatPassTheThresholdAndThirdPartyRule(
            Level threshold, String owner, Level level, boolean written) {
        CapturedLog log = new CapturedLog(LogFormat.JSON, threshold);
        Logger logger = log.logger(owner.equals("own") ? CapturedLog.OWN : CapturedLog.THIRD_PARTY);

        logger.atLevel(level).log("Event");
        logger.makeLoggingEventBuilder(level).log("Event");

        assertEquals(written, logger.isEnabledForLevel(level));
        assertEquals(written ? 2 : 0, log.lines().size(), log.output());
    }

    @Test
    void shouldTreatOnlyOurPackageAndItsChildrenAsOwnLoggers() {
        CapturedLog log = new CapturedLog(LogFormat.JSON, Level.INFO);

        log.logger("com.example.crawl.egress").info("Own root");
        log.logger("com.example.crawl.egress.gce.GceProvider").info("Own child");
        log.logger("com.example.crawl.egressor.Other").info("Look-alike");
        log.logger(Logger.ROOT_LOGGER_NAME).info("Root");

        assertEquals(2, log.lines().size(), log.output());
    }

    @Test
    void shouldFollowSettingsChangedAfterTheLoggerWasCreated() {
        CapturedLog log = new CapturedLog(LogFormat.JSON, Level.INFO);
        Logger early = log.logger(CapturedLog.THIRD_PARTY);
        early.debug("Dropped at info");

        LogSettings before = log.sink.settings();
        log.sink.configure(
                new LogSettings(LogFormat.TEXT, Level.DEBUG, before.out(), before.clock()));
        early.debug("Kept at debug");

        assertEquals(
                "2026-11-29T09:12:30.123Z DEBUG " + CapturedLog.THIRD_PARTY + "  Kept at debug\n",
                log.output());
    }
}
