package com.example.crawl.egress.proxy;

import com.example.crawl.egress.crash.FaultPlan.When;
import com.example.crawl.egress.crash.FaultPlan;
import com.example.crawl.egress.provider.CreateRequest;
import com.example.crawl.egress.provider.Instance;
import com.example.crawl.egress.provider.ListsForDrift;
import com.example.crawl.egress.provider.Provider;
import com.example.crawl.egress.provider.ProviderException;
import java.util.List;

/**
 * A provider with the {@link FaultPlan}'s faults around every call: a crash point before and after
 * it, and a provider error instead of it. Its providerIDs carry the provider's name, and an ID of
 * another provider is refused {@code Permanent}, as a real provider of another type would refuse
 * it. {@code DEADLINE} models a call slow beyond its deadline:
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
        return call("create", () -> ours(backend.create(req)));
    }

    @Override
    public Instance get(String providerID) throws ProviderException {
        return call("get", () -> ours(backend.get(backends(providerID))));
    }

    @Override
    public void delete(String providerID) throws ProviderException {
        call("delete", () -> {
            backend.delete(backends(providerID));
            return null;
        });
    }

    @Override
    public List<Instance> listByTag() throws ProviderException {
        return call("listByTag", () -> backend.listByTag().stream().map(this::ours).toList());
    }

    /** The providerID as the operator sees it: the provider's name in front, as real providers' IDs differ by type. */
    static String providerID(String provider, String backendID) {
        return provider + ":" + backendID;
    }

    private Instance ours(Instance instance) {
        return new Instance(providerID(name, instance.providerID()), instance.name(), instance.ownerUid(),
                instance.state(), instance.ip(), instance.createdAt());
    }

    /** A providerID of another provider is refused for good, as a real provider refuses an ID it cannot parse. */
    private String backends(String providerID) throws ProviderException {
        String prefix = name + ":";
        if (!providerID.startsWith(prefix)) {
            throw new ProviderException.Permanent("providerID " + providerID + " is not one of provider " + name);
        }
        return providerID.substring(prefix.length());
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
