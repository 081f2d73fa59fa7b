package com.example.crawl.egress.fakeapi;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.CustomResource;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A kind of object {@link FakeApi} serves, and how its objects are put together from parts: the
 * metadata, the spec (everything a user writes besides metadata) and, for a custom resource, the
 * status subresource.
 *
 * @param <T> the object's class
 */
public final class Kind<T extends HasMetadata> {

    /** Makes an object of {@code meta}, the spec of {@code spec} and the status of {@code status} (none when null). */
    @FunctionalInterface
    interface Assembler<T> {
        T assemble(ObjectMeta meta, T spec, T status);
    }

    private final String name;
    private final Class<T> type;
    private final boolean hasStatus;
    private final Assembler<T> assembler;
    private final Function<T, Object> spec;

    Kind(String name, Class<T> type, boolean hasStatus, Assembler<T> assembler, Function<T, Object> spec) {
        this.name = name;
        this.type = type;
        this.hasStatus = hasStatus;
        this.assembler = assembler;
        this.spec = spec;
    }

    /** A custom resource: spec and status, {@code generation} kept, status written through its subresource. */
    static <S, St, T extends CustomResource<S, St>> Kind<T> custom(String name, Class<T> type, Supplier<T> make) {
        return new Kind<>(name, type, true, (meta, spec, status) -> {
            T object = make.get();
            object.setMetadata(meta);
            object.setSpec(spec.getSpec());
            object.setStatus(status == null ? null : status.getStatus());
            return object;
        }, CustomResource::getSpec);
    }

    Class<T> type() {
        return type;
    }

    /** Whether the kind has a status subresource and a {@code generation} that its spec moves. */
    boolean hasStatus() {
        return hasStatus;
    }

    T assemble(ObjectMeta meta, T spec, T status) {
        return assembler.assemble(meta, spec, status);
    }

    /** The part of an object whose change moves {@code generation} (null for a kind without one). */
    Function<T, Object> spec() {
        return spec;
    }

    /** The kind's name, as a {@link FakeApi.Change} spells it: {@code proxy}, {@code pool}, {@code secret}. */
    @Override
    public String toString() {
        return name;
    }
}
