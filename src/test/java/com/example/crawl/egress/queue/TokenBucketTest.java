package com.example.crawl.egress.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.example.crawl.egress.clock.FakeClock;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TokenBucketTest {
    private final FakeClock clock = new FakeClock();
    private final TokenBucket<String> bucket = new TokenBucket<>(10, 100, clock);

    @Test
    void shouldPassTheBurstAtOnceThenSpaceRequeuesByTheRate() {
        for (int i = 0; i < 100; i++) {
            assertEquals(Duration.ZERO, bucket.when("key" + i), "token " + i);
        }

        assertEquals(Duration.ofMillis(100), bucket.when("a"));
        assertEquals(Duration.ofMillis(200), bucket.when("b"));
        assertEquals(Duration.ofMillis(300), bucket.when("c"));
    }

    @Test
    void shouldTakeWithoutReservingWhenTriedAndPushNobodyBackWhenRefused() {
        TokenBucket<Void> twoASecond = new TokenBucket<>(2, 2, clock);
        assertEquals(Optional.empty(), twoASecond.tryTake());
        assertEquals(Optional.empty(), twoASecond.tryTake(), "the burst");
        assertEquals(Optional.of(Duration.ofMillis(500)), twoASecond.tryTake());
        assertEquals(Optional.of(Duration.ofMillis(500)), twoASecond.tryTake(), "a refusal took nothing");
        clock.advance(Duration.ofMillis(499));
        assertEquals(Optional.of(Duration.ofMillis(1)), twoASecond.tryTake());
        clock.advance(Duration.ofMillis(1));
        assertEquals(Optional.empty(), twoASecond.tryTake(), "one token a half second");
        clock.advance(Duration.ofHours(1));
        assertEquals(Optional.empty(), twoASecond.tryTake());
        assertEquals(Optional.empty(), twoASecond.tryTake());
        assertEquals(Optional.of(Duration.ofMillis(500)), twoASecond.tryTake(), "an idle bucket holds its burst, no more");
    }

    @Test
    void shouldRefillAtTheRateAsTheClockAdvances() {
        drain();

        clock.advance(Duration.ofSeconds(1));

        for (int i = 0; i < 10; i++) {
            assertEquals(Duration.ZERO, bucket.when("a"), "token " + i);
        }
        assertEquals(Duration.ofMillis(100), bucket.when("a"));
    }

    @Test
    void shouldRepayReservedTokensBeforeRefilling() {
        drain();
        bucket.when("a"); // reserved, due in 100 ms

        clock.advance(Duration.ofMillis(150));

        assertEquals(Duration.ofMillis(50), bucket.when("b"));
    }

    @Test
    void shouldHoldNoMoreThanTheBurstHoweverLongItIdles() {
        drain();

        clock.advance(Duration.ofHours(1));

        drain();
        assertEquals(Duration.ofMillis(100), bucket.when("a"));
    }

    @Test
    void shouldIgnoreKeys() {
        bucket.when("a");

        bucket.forget("a");

        assertEquals(0, bucket.numRequeues("a"));
    }

    @Test
    void shouldRejectANonPositiveRateOrBurst() {
        assertThrows(IllegalArgumentException.class, () -> new TokenBucket<>(0, 1, clock));
        assertThrows(IllegalArgumentException.class, () -> new TokenBucket<>(Double.NaN, 1, clock));
        assertThrows(IllegalArgumentException.class, () -> new TokenBucket<>(1, 0, clock));
    }

    /** Takes the 100 tokens of the burst, each without waiting. */
    private void drain() {
        for (int i = 0; i < 100; i++) {
            assertEquals(Duration.ZERO, bucket.when("drain"));
        }
    }
}
