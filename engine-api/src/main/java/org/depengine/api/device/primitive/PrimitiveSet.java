package org.depengine.api.device.primitive;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The primitives one device offers, looked up by interface: a helper for implementing
 * {@link org.depengine.api.device.Device#primitive(Class)}. The answer for each interface is found once
 * and cached. Thread-safe.
 */
public final class PrimitiveSet {
    private final List<Primitive> offered;
    private final ConcurrentHashMap<Class<?>, Optional<? extends Primitive>> byType = new ConcurrentHashMap<>();

    /**
     * A set of the given primitive objects (one object may implement several interfaces).
     *
     * @param offered the primitives the device offers, in lookup order
     * @throws NullPointerException if an element is null
     */
    public PrimitiveSet(Primitive... offered) {
        this.offered = List.of(offered);
    }

    /**
     * The first offered primitive that implements {@code type}, or empty.
     *
     * @param <P> the primitive interface
     * @param type the primitive interface
     * @return the primitive, or empty
     * @throws NullPointerException if {@code type} is null
     */
    public <P extends Primitive> Optional<P> find(Class<P> type) {
        Objects.requireNonNull(type, "type");
        Optional<? extends Primitive> found = byType.computeIfAbsent(type,
                t -> offered.stream().filter(t::isInstance).findFirst());
        return found.map(type::cast);
    }
}
