package com.example.crawl.egress.provider.kvm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.example.crawl.egress.provider.ProviderException;
import java.io.IOException;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DialFailureTest {

    @Test
    void shouldStartItsMessageWithTheStageTag() {
        DialFailure failure = new DialFailure(DialFailure.Stage.SSH_HANDSHAKE, "user root not accepted", null);

        assertEquals("ssh-handshake: user root not accepted", failure.getMessage());
    }

    @Test
    void shouldFindTheStageBehindTheProviderErrorACallerSees() {
        DialFailure failure = new DialFailure(DialFailure.Stage.TCP, "refused", new IOException("Connection refused"));
        ProviderException seen = new ProviderException.Transient("host h: " + failure.getMessage(), failure);

        assertEquals(Optional.of(DialFailure.Stage.TCP), DialFailure.stageOf(seen));
        assertEquals(Optional.empty(), DialFailure.stageOf(new ProviderException.Transient("host h: busy")));
    }
}
