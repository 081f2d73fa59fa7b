package com.example.crawl.egress.provider;

import java.util.List;

/** Passes every call to {@code delegate}; a test overrides the calls it wants to change. */
public class ForwardingProvider implements Provider {

    private final Provider delegate;

    public ForwardingProvider(Provider delegate) {
        this.delegate = delegate;
    }

    @Override
    public Instance create(CreateRequest req) throws ProviderException {
        return delegate.create(req);
    }

    @Override
    public Instance get(String providerID) throws ProviderException {
        return delegate.get(providerID);
    }

    @Override
    public void delete(String providerID) throws ProviderException {
        delegate.delete(providerID);
    }

    @Override
    public List<Instance> listByTag() throws ProviderException {
        return delegate.listByTag();
    }
}
