package com.example.crawl.egress.controller;

import com.example.crawl.egress.controller.FaultPlan.When;
import com.example.crawl.egress.provider.CreateRequest;
import com.example.crawl.egress.provider.Instance;
import com.example.crawl.egress.provider.ListsForDrift;
import com.example.crawl.egress.provider.Provider;
import com.example.crawl.egress.provider.ProviderException;
import java.util.List;

/**
 * A provider with the {@link FaultPlan}'s faults around every call: a crash point before and after
 * it, and a provider error instead of it. {@code DEADLINE} models a call slow beyond its deadline:
 * the backend did the work, the caller sees {@code Transient}.
 */
class FaultyProvider implements Provider {

    private final String name;
    private final Provider backend;
    private final FaultPlan plan;

    FaultyProvider(String name, Provider backend, FaultPlan plan) {
        this.name = name;
        this.backend = backend;
        this.plan = plan;
    }

    /** The same, for a provider whose drift checks come from a listing. */
    static final class Listing extends FaultyProvider implements ListsForDrift {
        Listing(String name, Provider backend, FaultPlan plan) {
            super(name, backend, plan);
        }
    }

    @FunctionalInterface
    private interface Call<T> {
        T run() throws ProviderException;
    }

    @Override
    public Instance create(CreateRequest req) throws ProviderException {
        return call("create", () -> backend.create(req));
    }

    @Override
    public Instance get(String providerID) throws ProviderException {
        return call("get", () -> backend.get(providerID));
    }

    @Override
    public void delete(String providerID) throws ProviderException {
        call("delete", () -> {
            backend.delete(providerID);
            return null;
        });
    }

    @Override
    public List<Instance> listByTag() throws ProviderException {
        return call("listByTag", backend::listByTag);
    }

    private <T> T call(String op, Call<T> call) throws ProviderException {
        String point = "provider." + op;
        plan.crashPoint(point, When.before);
        String where = name + " " + op;
        switch (plan.providerFault(point)) {
            case TRANSIENT -> throw new ProviderException.Transient(where + ": 503 injected");
            case QUOTA -> throw new ProviderException.QuotaExceeded(where + ": quota injected");
            case PERMANENT -> throw new ProviderException.Permanent(where + ": 403 injected");
            case DEADLINE -> {
                call.run();
                throw new ProviderException.Transient(where + ": deadline exceeded (injected)");
            }
            case NONE -> { }
        }
        T result = call.run();
        plan.crashPoint(point, When.after);
        return result;
    }
}
