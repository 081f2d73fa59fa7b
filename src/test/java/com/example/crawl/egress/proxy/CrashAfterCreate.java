package com.example.crawl.egress.proxy;

import com.example.crawl.egress.provider.CreateRequest;
import com.example.crawl.egress.provider.ForwardingProvider;
import com.example.crawl.egress.provider.Instance;
import com.example.crawl.egress.provider.Provider;
import com.example.crawl.egress.provider.ProviderException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A provider whose first create makes the instance and then fails, as if the operator had crashed
 * between the provider call and the status write that records it.
 */
final class CrashAfterCreate extends ForwardingProvider {

    private final AtomicBoolean crashed = new AtomicBoolean();

    CrashAfterCreate(Provider delegate) {
        super(delegate);
    }

    @Override
    public Instance create(CreateRequest req) throws ProviderException {
        Instance made = super.create(req);
        if (crashed.compareAndSet(false, true)) {
            throw new ProviderException.Transient("operator crashed after create");
        }
        return made;
    }

    boolean crashed() {
        return crashed.get();
    }
}
