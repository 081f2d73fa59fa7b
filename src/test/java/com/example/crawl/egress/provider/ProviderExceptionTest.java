package com.example.crawl.egress.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

class ProviderExceptionTest {

    @Test
    void shouldReturnAProviderErrorItself() {
        ProviderException quota = new ProviderException.QuotaExceeded("CPUS quota exceeded in europe-west4");

        assertSame(quota, ProviderException.classify(quota));
    }

    @Test
    void shouldFindAProviderErrorAmongTheCauses() {
        ProviderException permanent = new ProviderException.Permanent("image debian-13 not found");
        Throwable wrapped = new ExecutionException(new UncheckedIOException(new IOException("upload failed", permanent)));

        assertSame(permanent, ProviderException.classify(wrapped));
    }

    @Test
    void shouldClassifyAnUnknownErrorAsTransientKeepingItAsTheCause() {
        IOException refused = new IOException("connection refused");

        ProviderException classified = ProviderException.classify(refused);

        assertInstanceOf(ProviderException.Transient.class, classified);
        assertEquals("connection refused", classified.getMessage());
        assertSame(refused, classified.getCause());
    }

    @Test
    void shouldNameTheClassWhenAnUnknownErrorHasNoMessage() {
        ProviderException classified = ProviderException.classify(new NullPointerException());

        assertEquals("java.lang.NullPointerException", classified.getMessage());
    }

    @Test
    void shouldStopWalkingACauseCycle() {
        RuntimeException a = new RuntimeException("a");
        RuntimeException b = new RuntimeException("b", a);
        a.initCause(b);

        ProviderException classified = ProviderException.classify(a);

        assertInstanceOf(ProviderException.Transient.class, classified);
        assertSame(a, classified.getCause());
    }

    @Test
    void shouldNameEachClassForMetricsAndLogs() {
        List<String> kinds = all().stream().map(ProviderException::kind).toList();

        assertEquals(List.of("NotFound", "Transient", "QuotaExceeded", "Permanent"), kinds);
    }

    @Test
    void shouldBeAClosedFamilyOfFour() {
        List<String> permitted = Arrays.stream(ProviderException.class.getPermittedSubclasses())
                .map(Class::getSimpleName).toList();

        assertEquals(List.of("NotFound", "Transient", "QuotaExceeded", "Permanent"), permitted);
    }

    /** The reconciler's use: one exhaustive switch, which stops compiling if a fifth class appears. */
    @Test
    void shouldLetAnExhaustiveSwitchDecideWhatToDo() {
        List<String> actions = all().stream().map(ProviderExceptionTest::reconcilerAction).toList();

        assertEquals(List.of("recreate", "backoff", "wait", "fail"), actions);
    }

    @Test
    void shouldKeepMessageAndCause() {
        IOException cause = new IOException("403");

        ProviderException e = new ProviderException.Permanent("instances.insert denied", cause);

        assertEquals("instances.insert denied", e.getMessage());
        assertSame(cause, e.getCause());
    }

    private static String reconcilerAction(ProviderException e) {
        return switch (e) {
            case ProviderException.NotFound n -> "recreate";
            case ProviderException.Transient t -> "backoff";
            case ProviderException.QuotaExceeded q -> "wait";
            case ProviderException.Permanent p -> "fail";
        };
    }

    @Test
    void shouldFindTheLastCauseAndStopAtACycle() {
        IOException reset = new IOException("Connection reset");
        RuntimeException wrapped = new RuntimeException(new ExecutionException(reset));
        assertSame(reset, ProviderException.rootCause(wrapped));
        assertSame(reset, ProviderException.rootCause(reset));

        RuntimeException a = new RuntimeException("a");
        RuntimeException b = new RuntimeException("b", a);
        a.initCause(b); // a -> b -> a
        assertInstanceOf(RuntimeException.class, ProviderException.rootCause(a)); // returns instead of looping
    }

    private static List<ProviderException> all() {
        return List.of(new ProviderException.NotFound("n"), new ProviderException.Transient("t"),
                new ProviderException.QuotaExceeded("q"), new ProviderException.Permanent("p"));
    }
}
