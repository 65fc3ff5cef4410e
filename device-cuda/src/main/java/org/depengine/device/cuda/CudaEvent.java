package org.depengine.device.cuda;

import jcuda.CudaException;
import jcuda.driver.CUevent;
import jcuda.driver.CUstream;
import org.depengine.api.EngineException;
import org.depengine.api.device.Event;

/**
 * An event recorded on a {@link CudaStream}. Its {@code CUevent} goes back to the device's pool as
 * soon as the marked work is seen done; the wrapper then stays done, so later calls, and waits on it
 * from other streams, cost nothing and cannot touch the recycled event (which may by then mark other
 * work).
 *
 * <p>While a call uses the handle (query, host wait, device wait) it is pinned: a counter under the
 * lock, never held across the blocking call; the handle is recycled when done and unpinned.
 */
final class CudaEvent implements Event {
    private final CudaDevice device;
    /** Null once recycled. Guarded by this. */
    private CUevent handle;
    /** Guarded by this. */
    private int pins;
    private volatile boolean done;
    private volatile RuntimeException failure;

    CudaEvent(CudaDevice device, CUevent handle) {
        this.device = device;
        this.handle = handle;
    }

    CudaDevice device() {
        return device;
    }

    /** {@code cuEventQuery}; never blocks. A failed query counts as done, and {@link #await()} reports it. */
    @Override
    public boolean isDone() {
        if (done) {
            return true;
        }
        CUevent h = pin();
        if (h == null) {
            return true;
        }
        boolean finished = false;
        try {
            device.bind();
            finished = device.driver().queryEvent(h);
        } catch (CudaException e) {
            failure = new EngineException("CUDA error on " + device.context() + " while querying an event: "
                    + e.getMessage(), e);
            finished = true;
        } finally {
            unpin(finished);
        }
        return finished;
    }

    /**
     * {@code cuEventSynchronize}.
     *
     * @throws EngineException if CUDA reports an error for the marked work
     */
    @Override
    public void await() {
        if (!done) {
            CUevent h = pin();
            if (h != null) {
                boolean finished = false;
                try {
                    device.bind();
                    device.driver().synchronizeEvent(h);
                    finished = true;
                } catch (CudaException e) {
                    failure = new EngineException("CUDA error on " + device.context() + " while waiting for an event: "
                            + e.getMessage(), e);
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

    /** {@code cuStreamWaitEvent} on {@code stream}; nothing when already done. */
    void enqueueWait(CUstream stream) {
        if (done) {
            return;
        }
        CUevent h = pin();
        if (h == null) {
            return;
        }
        try {
            device.driver().streamWaitEvent(stream, h);
        } finally {
            unpin(false);
        }
    }

    /** Marks the event done and recycles its handle (after a stream synchronize, or on close). */
    void markDone() {
        CUevent h;
        synchronized (this) {
            done = true;
            if (handle == null || pins > 0) {
                return;
            }
            h = handle;
            handle = null;
        }
        device.events().release(h);
    }

    private synchronized CUevent pin() {
        if (handle == null) {
            return null;
        }
        pins++;
        return handle;
    }

    private void unpin(boolean finished) {
        CUevent h = null;
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
            device.events().release(h);
        }
    }

    @Override
    public String toString() {
        return "CudaEvent[" + device.context() + (done ? ", done" : "") + "]";
    }
}
