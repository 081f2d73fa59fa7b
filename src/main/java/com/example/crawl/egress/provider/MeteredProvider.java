package com.example.crawl.egress.provider;

import com.example.crawl.egress.clock.NanoClock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * A {@link Provider} that reports every call to a {@link RequestRecorder} and otherwise changes
 * nothing: the delegate's result is returned and its exception rethrown, the same instance.
 *
 * <p>This is the one place {@link ProviderException#classify} runs only for observability: an
 * unchecked exception escaping the delegate (a bug) is recorded under the class it will be
 * treated as, {@code Transient}, and rethrown unchanged. Thread-safe if the delegate and the
 * recorder are; adds no blocking of its own. Built through {@link ProviderDecorator#metered}.
 */
final class MeteredProvider implements Provider {

    static final String CREATE = "create";
    static final String GET = "get";
    static final String DELETE = "delete";
    static final String LIST = "list";

    private final String name;
    private final Provider delegate;
    private final RequestRecorder recorder;
    private final NanoClock nanoTime;

    MeteredProvider(String name, Provider delegate, RequestRecorder recorder, NanoClock nanoTime) {
        this.name = Objects.requireNonNull(name, "name");
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.recorder = Objects.requireNonNull(recorder, "recorder");
        this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
    }

    @Override
    public Instance create(CreateRequest req) throws ProviderException {
        return metered(CREATE, () -> delegate.create(req));
    }

    @Override
    public Instance get(String providerID) throws ProviderException {
        return metered(GET, () -> delegate.get(providerID));
    }

    @Override
    public void delete(String providerID) throws ProviderException {
        metered(DELETE, () -> {
            delegate.delete(providerID);
            return null;
        });
    }

    @Override
    public List<Instance> listByTag() throws ProviderException {
        return metered(LIST, delegate::listByTag);
    }

    @Override
    public String toString() {
        return "Metered[" + delegate + "]";
    }

    private interface Call<T> {
        T run() throws ProviderException;
    }

    private <T> T metered(String op, Call<T> call) throws ProviderException {
        long start = nanoTime.nanoTime();
        T result;
        try {
            result = call.run();
        } catch (ProviderException | RuntimeException e) {
            record(op, ProviderException.classify(e).kind(), start);
            throw e;
        }
        record(op, RequestRecorder.OK, start);
        return result;
    }

    private void record(String op, String result, long start) {
        recorder.record(name, op, result, Duration.ofNanos(nanoTime.nanoTime() - start));
    }
}
