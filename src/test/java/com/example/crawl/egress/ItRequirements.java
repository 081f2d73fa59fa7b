package com.example.crawl.egress;

import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Assumptions;

/**
 * What an integration test does when a component it needs (Squid, libvirtd, sshd) is missing:
 * skip with the reason on a developer's machine, fail where {@code EGRESS_IT_REQUIRED=1} says the
 * component must be there (CI sets it after installing everything).
 */
public final class ItRequirements {

    private ItRequirements() {
    }

    /**
     * Returns if {@code present}; otherwise fails the test when {@code EGRESS_IT_REQUIRED=1} and
     * aborts it (skipped, not failed) when not.
     *
     * @param component    what is missing, e.g. "squid"
     * @param howToInstall one line a person can run or follow, e.g. "apt-get install squid"
     */
    public static void require(String component, boolean present, String howToInstall) {
        if (present) {
            return;
        }
        String reason = component + " is not installed (" + howToInstall + ")";
        if ("1".equals(System.getenv("EGRESS_IT_REQUIRED"))) {
            fail(reason + "; EGRESS_IT_REQUIRED=1 makes this a failure");
        }
        Assumptions.abort(reason + "; skipped");
    }
}
