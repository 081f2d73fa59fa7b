package com.example.crawl.egress.discovery;

import com.example.crawl.egress.lease.Acquisition;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The audit log of lending: one INFO line per lease request that was granted or refused, with the
 * client (or {@code admin}), the proxy and the target, and for a refusal its {@code error}. Never
 * a token, a lease id or a password. Its own logger, so that a deployment that ships its log
 * elsewhere can route or silence these lines by name.
 */
final class LeaseAudit {

    private static final Logger LOG = LoggerFactory.getLogger(LeaseAudit.class);

    private LeaseAudit() {
    }

    /** What the store made of {@code client}'s request for {@code target}. */
    static void acquired(String client, Optional<String> target, Acquisition outcome) {
        if (!LOG.isInfoEnabled()) {
            return;
        }
        switch (outcome) {
            case Acquisition.Granted g -> LOG.atInfo().addKeyValue("client", client)
                    .addKeyValue("proxy", g.proxy().key()).addKeyValue("target", target.orElse(""))
                    .addKeyValue("expiresAt", g.lease().expiresAt()).log("Lease granted");
            case Acquisition.NoMatch n -> refused(client, target, ErrorCode.NO_MATCH);
            case Acquisition.SessionUnavailable s -> LOG.atInfo().addKeyValue("client", client)
                    .addKeyValue("proxy", s.proxyKey()).addKeyValue("target", target.orElse(""))
                    .addKeyValue("error", ErrorCode.SESSION_UNAVAILABLE.wireName()).log("Lease refused");
            case Acquisition.OverQuota q -> refused(client, target, ErrorCode.QUOTA_EXCEEDED);
            case Acquisition.OverShare o -> refused(client, target, ErrorCode.OVER_SHARE);
        }
    }

    /** {@code client}'s request for {@code target} was refused with {@code error}, no proxy named. */
    static void refused(String client, Optional<String> target, ErrorCode error) {
        LOG.atInfo().addKeyValue("client", client).addKeyValue("target", target.orElse(""))
                .addKeyValue("error", error.wireName()).log("Lease refused");
    }
}
