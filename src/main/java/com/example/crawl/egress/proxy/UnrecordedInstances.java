package com.example.crawl.egress.proxy;

import com.example.crawl.egress.provider.Instance;
import com.example.crawl.egress.provider.Provider;
import com.example.crawl.egress.provider.ProviderException;
import java.util.ArrayList;
import java.util.List;

/**
 * The instances a provider holds for a Proxy whose status records none: what a pass made before
 * its status write was lost (a crash, a failed write). Found by listing, since nothing recorded
 * their providerID; each is confirmed with {@code get}, because a listing also shows instances
 * already on their way out.
 */
final class UnrecordedInstances {

    private UnrecordedInstances() {
    }

    /**
     * Starts deleting every instance of {@code ownerUid} that {@code maker} still has.
     *
     * @return the providerIDs still going away; empty once there are none
     */
    static List<String> delete(Provider maker, String ownerUid) throws ProviderException {
        List<String> going = new ArrayList<>();
        for (Instance listed : maker.listByTag()) {
            if (!ownerUid.equals(listed.ownerUid())) {
                continue;
            }
            try {
                maker.get(listed.providerID());
            } catch (ProviderException.NotFound e) {
                continue;
            }
            maker.delete(listed.providerID());
            going.add(listed.providerID());
        }
        return going;
    }
}
