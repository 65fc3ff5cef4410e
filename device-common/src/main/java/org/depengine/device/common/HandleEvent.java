package org.depengine.device.common;

import java.util.function.Consumer;
import org.depengine.api.device.Event;

/**
 * An event over one native handle ({@code cl_event}, {@code CUevent}) that gives the handle back
 * ({@link #recycle}) as soon as the marked work is seen done; the wrapper then stays done on its own, so
 * later calls, and waits on it from other streams, cost nothing and can never touch a handle that has
 * been reused for other work.
 *
 * <p>While a call uses the handle (a query, a host wait, a device-side wait) it is pinned: a counter
 * under this object's lock, never held across the native call; the handle is recycled when done and
 * unpinned. A failure of the query or of the marked work counts as done and is thrown by
 * {@link #await()}. Thread-safe.
 *
 * @param <H> the native handle
 */
public abstract class HandleEvent<H> implements Event {
    private final Object owner;
    /** Null once recycled. Guarded by this. */
    private H handle;
    /** Calls using {@link #handle} right now. Guarded by this. */
    private int pins;
    private volatile boolean done;
    private volatile RuntimeException failure;

    /** An event of {@code owner} (named in {@link #toString()}) over {@code handle}. */
    protected HandleEvent(Object owner, H handle) {
        this.owner = owner;
        this.handle = handle;
    }

    /**
     * Whether the marked work is done, without blocking.
     *
     * @throws RuntimeException describing the failure, if the work or the query failed
     */
    protected abstract boolean query(H handle);

    /**
     * Blocks until the marked work is done.
     *
     * @throws RuntimeException describing the failure, if the work or the wait failed
     */
    protected abstract void hostWait(H handle);

    /** Gives the handle back (to a pool, or to the driver); called once, when nothing uses it. */
    protected abstract void recycle(H handle);

    /** Asks the device, without blocking; a failure counts as done and is thrown by {@link #await()}. */
    @Override
    public final boolean isDone() {
        if (done) {
            return true;
        }
        H h = pin();
        if (h == null) {
            return true;
        }
        boolean finished = false;
        try {
            finished = query(h);
        } catch (RuntimeException e) {
            failure = e;
            finished = true;
        } finally {
            unpin(finished);
        }
        return finished;
    }

    /**
     * Blocks until the marked work is done. The native wait may not react to interrupts.
     *
     * @throws RuntimeException ({@link org.depengine.api.EngineException} from the devices of this
     *     project) if the marked work or the wait failed
     */
    @Override
    public final void await() {
        if (!done) {
            H h = pin();
            if (h != null) {
                boolean finished = false;
                try {
                    hostWait(h);
                    finished = true;
                } catch (RuntimeException e) {
                    failure = e;
                    finished = true;
                } finally {
                    unpin(finished);
                }
            }
        }
        RuntimeException f = failure;
        if (f != null) {
            throw f;
        }
    }

    /**
     * Runs {@code action} with the handle pinned (e.g. to enqueue a device-side wait for it), unless the
     * event is already done: then there is nothing to wait for and nothing runs.
     */
    protected final void withHandle(Consumer<H> action) {
        if (done) {
            return;
        }
        H h = pin();
        if (h == null) {
            return;
        }
        try {
            action.accept(h);
        } finally {
            unpin(false);
        }
    }

    /**
     * Marks the event done without asking the device, and recycles the handle unless a call still uses
     * it (the last one then does): for a stream that knows its work has finished (after a synchronize,
     * or while closing).
     */
    public final void markDone() {
        H h;
        synchronized (this) {
            done = true;
            if (handle == null || pins > 0) {
                return;
            }
            h = handle;
            handle = null;
        }
        recycle(h);
    }

    private synchronized H pin() {
        if (handle == null) {
            return null;
        }
        pins++;
        return handle;
    }

    private void unpin(boolean finished) {
        H h = null;
        synchronized (this) {
            pins--;
            if (finished) {
                done = true;
            }
            if (done && pins == 0 && handle != null) {
                h = handle;
                handle = null;
            }
        }
        if (h != null) {
            recycle(h);
        }
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + owner + (done ? ", done" : "") + "]";
    }
}
