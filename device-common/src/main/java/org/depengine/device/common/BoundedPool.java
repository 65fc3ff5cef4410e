package org.depengine.device.common;

import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A pool of reusable objects (native events, callback records) that keeps at most {@code limit} idle
 * ones: {@link #acquire()} reuses an idle object or makes one, {@link #release} keeps it for reuse or,
 * past the limit, discards it. Thread-safe and lock-free.
 *
 * @param <T> the pooled objects
 */
public final class BoundedPool<T> {
    private final int limit;
    private final Supplier<? extends T> factory;
    private final Consumer<? super T> discard;
    private final ConcurrentLinkedQueue<T> idle = new ConcurrentLinkedQueue<>();
    private final AtomicInteger idleCount = new AtomicInteger();
    private final AtomicLong created = new AtomicLong();
    private final AtomicLong discarded = new AtomicLong();

    /**
     * A pool keeping at most {@code limit} idle objects.
     *
     * @param factory makes a new object when none is idle (may throw; nothing is counted then)
     * @param discard frees an object the pool does not keep (e.g. destroys a native handle)
     * @throws IllegalArgumentException if {@code limit} is negative
     */
    public BoundedPool(int limit, Supplier<? extends T> factory, Consumer<? super T> discard) {
        if (limit < 0) {
            throw new IllegalArgumentException("pool limit must be >= 0, got " + limit);
        }
        this.limit = limit;
        this.factory = Objects.requireNonNull(factory, "factory");
        this.discard = Objects.requireNonNull(discard, "discard");
    }

    /** An idle object, or a new one when none is idle. */
    public T acquire() {
        T t = idle.poll();
        if (t != null) {
            idleCount.decrementAndGet();
            return t;
        }
        t = factory.get();
        created.incrementAndGet();
        return t;
    }

    /** Gives back an object from {@link #acquire()} that nothing uses any more. */
    public void release(T t) {
        if (idleCount.incrementAndGet() <= limit) {
            idle.offer(t);
        } else {
            idleCount.decrementAndGet();
            discard(t);
        }
    }

    /** Discards every idle object. */
    public void clear() {
        T t;
        while ((t = idle.poll()) != null) {
            idleCount.decrementAndGet();
            discard(t);
        }
    }

    private void discard(T t) {
        discarded.incrementAndGet();
        discard.accept(t);
    }

    /** Objects made so far. */
    public long created() {
        return created.get();
    }

    /** Objects that exist now: made and not discarded (idle or in use). */
    public long live() {
        return created.get() - discarded.get();
    }

    /** Objects idle in the pool now. */
    public int idle() {
        return idleCount.get();
    }
}
