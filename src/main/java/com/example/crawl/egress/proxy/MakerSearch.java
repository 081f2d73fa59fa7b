package com.example.crawl.egress.proxy;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.provider.ProviderException;
import com.example.crawl.egress.provider.ProviderRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * Which configured provider made an instance, for a Proxy recorded before the instance-provider
 * annotation existed and edited since, when neither the annotation nor the spec hash tells. Each
 * configured provider, the spec's first, is asked for the providerID: one of another type refuses
 * the ID ({@code Permanent}), one of the same type that lacks it answers {@code NotFound}, and
 * since the instance's name derives from the Proxy's UID only its maker can have it. Costs one
 * {@code get} per configured provider at most, only on that path.
 */
final class MakerSearch {

    private MakerSearch() {
    }

    /**
     * The provider (by config name) that made the instance in {@code pass}'s status: as recorded;
     * for an object from before that annotation, the configured provider that, put in the spec,
     * gives the recorded hash (the hash covers the provider, so only one can), which finds the
     * maker after an edit of {@code spec.provider} alone; failing that, the one that has the
     * instance ({@link #maker}); failing that, or with none in status, the spec's.
     *
     * @param annotated  the recorded spec hash
     * @param hashOnName the spec hash the Proxy would have with that provider's name in its spec
     */
    static String of(ProviderRegistry providers, Pass pass, String annotated, UnaryOperator<String> hashOnName)
            throws ProviderException {
        String recorded = pass.annotation(Proxy.INSTANCE_PROVIDER_ANNOTATION);
        if (recorded != null) {
            return recorded;
        }
        Optional<String> byHash = providers.names().stream()
                .filter(name -> annotated.equals(hashOnName.apply(name))).findFirst();
        String providerID = pass.status().providerID();
        if (byHash.isPresent() || providerID == null) {
            return byHash.orElse(pass.spec().provider());
        }
        return maker(providers, pass.spec().provider(), providerID);
    }

    /**
     * The provider holding {@code providerID}; failing that, the first that understood the ID
     * (answered {@code NotFound}: the instance is gone from the only kind of provider it could be
     * in); failing that, {@code spec}. The second is a guess that is wrong only when the holder
     * refuses its own instance's ID at that moment while a provider of the same type lacks it.
     *
     * @throws ProviderException a {@code Transient} or {@code QuotaExceeded} answer: ask again later
     */
    static String maker(ProviderRegistry providers, String spec, String providerID) throws ProviderException {
        Answers answers = search(providers, spec, providerID);
        return answers.holder().or(answers::understood).orElse(spec);
    }

    private record Answers(Optional<String> holder, Optional<String> understood) { }

    private static Answers search(ProviderRegistry providers, String spec, String providerID) throws ProviderException {
        List<String> order = new ArrayList<>(providers.names());
        if (order.remove(spec)) {
            order.addFirst(spec);
        }
        String understood = null;
        for (String name : order) {
            try {
                providers.find(name).orElseThrow().get(providerID);
                return new Answers(Optional.of(name), Optional.empty());
            } catch (ProviderException.NotFound e) {
                understood = understood == null ? name : understood;
            } catch (ProviderException.Permanent e) {
                // not an ID of this provider's kind, or not readable there: keep looking
            }
        }
        return new Answers(Optional.empty(), Optional.ofNullable(understood));
    }
}
