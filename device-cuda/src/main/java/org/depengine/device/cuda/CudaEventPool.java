package org.depengine.device.cuda;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import jcuda.driver.CUevent;

/**
 * A device's pool of {@code CUevent}s. Creating and destroying CUDA events is costly and can serialise
 * launches, while a CUDA event can be recorded again and again; so events go back here once the work
 * they marked is seen done, and {@link #acquire()} reuses them. At most {@code limit} idle events are
 * kept; more are destroyed. Thread-safe. Callers make the device's context current first.
 */
final class CudaEventPool {
    private final CudaDriver driver;
    private final int limit;
    private final ConcurrentLinkedQueue<CUevent> idle = new ConcurrentLinkedQueue<>();
    private final AtomicInteger idleCount = new AtomicInteger();
    private final AtomicLong created = new AtomicLong();
    private final AtomicLong destroyed = new AtomicLong();

    CudaEventPool(CudaDriver driver, int limit) {
        this.driver = driver;
        this.limit = limit;
    }

    /** An idle event, or a new one when none is idle. */
    CUevent acquire() {
        CUevent e = idle.poll();
        if (e != null) {
            idleCount.decrementAndGet();
            return e;
        }
        e = driver.createEvent();
        created.incrementAndGet();
        return e;
    }

    /** Returns an event whose marked work is done (or that was never recorded). */
    void release(CUevent e) {
        if (idleCount.incrementAndGet() <= limit) {
            idle.offer(e);
        } else {
            idleCount.decrementAndGet();
            destroy(e);
        }
    }

    /** Destroys every idle event. */
    void clear() {
        CUevent e;
        while ((e = idle.poll()) != null) {
            idleCount.decrementAndGet();
            destroy(e);
        }
    }

    private void destroy(CUevent e) {
        destroyed.incrementAndGet();
        driver.destroyEvent(e);
    }

    /** Events created so far. */
    long created() {
        return created.get();
    }

    /** Events that exist now: created and not destroyed (idle or in use). */
    long live() {
        return created.get() - destroyed.get();
    }

    /** Events idle in the pool now. */
    int idle() {
        return idleCount.get();
    }
}
