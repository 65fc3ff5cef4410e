package org.depengine.device.opencl;

import static org.jocl.CL.CL_COMPLETE;
import static org.jocl.CL.CL_EVENT_COMMAND_EXECUTION_STATUS;
import static org.jocl.CL.clEnqueueBarrierWithWaitList;
import static org.jocl.CL.clGetEventInfo;
import static org.jocl.CL.clWaitForEvents;

import org.depengine.api.EngineException;
import org.depengine.api.device.Event;
import org.jocl.CL;
import org.jocl.CLException;
import org.jocl.Pointer;
import org.jocl.Sizeof;
import org.jocl.cl_command_queue;
import org.jocl.cl_event;

/**
 * A marker's {@code cl_event}, released as soon as it is seen complete. A {@code cl_event} cannot be
 * recorded again, so this wrapper owns exactly one and, once done, stays done without it: later
 * {@link #isDone()}, {@link #await()} and waits on it cost nothing.
 *
 * <p>While a call uses the handle (a query, a host wait, a barrier) the handle is pinned so that a
 * concurrent release waits for the last user; the pin is a counter under the lock, never held across
 * a blocking call.
 */
final class OpenClEvent implements Event {
    private final OpenClDevice device;
    /** Null once released. Guarded by this. */
    private cl_event handle;
    /** Calls using {@link #handle} right now. Guarded by this. */
    private int pins;
    private volatile boolean done;
    /** 0, or the negative OpenCL status of failed work. */
    private volatile int errorStatus;

    OpenClEvent(OpenClDevice device, cl_event handle) {
        this.device = device;
        this.handle = handle;
    }

    OpenClDevice device() {
        return device;
    }

    /** Queries {@code CL_EVENT_COMMAND_EXECUTION_STATUS}; never blocks. A failed event counts as done. */
    @Override
    public boolean isDone() {
        if (done) {
            return true;
        }
        cl_event h = pin();
        if (h == null) {
            return true;
        }
        boolean finished = false;
        try {
            int[] status = new int[1];
            clGetEventInfo(h, CL_EVENT_COMMAND_EXECUTION_STATUS, Sizeof.cl_int, Pointer.to(status), null);
            if (status[0] == CL_COMPLETE) {
                finished = true;
            } else if (status[0] < 0) {
                errorStatus = status[0];
                finished = true;
            }
        } catch (CLException e) {
            errorStatus = e.getStatus() < 0 ? e.getStatus() : -1;
            finished = true;
        } finally {
            unpin(finished);
        }
        return finished;
    }

    /**
     * Blocks in {@code clWaitForEvents} until the marked work is done. The native wait does not react
     * to interrupts.
     *
     * @throws EngineException if the marked work failed
     */
    @Override
    public void await() {
        if (!done) {
            cl_event h = pin();
            if (h != null) {
                boolean finished = false;
                try {
                    clWaitForEvents(1, new cl_event[] {h});
                    finished = true;
                } catch (CLException e) {
                    // CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST: the work ended with an error.
                    errorStatus = e.getStatus() < 0 ? e.getStatus() : -1;
                    finished = true;
                } finally {
                    unpin(finished);
                }
            }
        }
        int err = errorStatus;
        if (err != 0) {
            throw new EngineException("OpenCL work on " + device.context() + " failed: " + CL.stringFor_errorCode(err));
        }
    }

    /** Enqueues a barrier on {@code queue} waiting for this event; nothing if it is already done. */
    void enqueueWait(cl_command_queue queue) {
        if (done) {
            return;
        }
        cl_event h = pin();
        if (h == null) {
            return;
        }
        try {
            clEnqueueBarrierWithWaitList(queue, 1, new cl_event[] {h}, null);
        } finally {
            unpin(false);
        }
    }

    /** Releases the handle whatever its state (closing the stream, after clFinish). */
    void releaseIfHeld() {
        cl_event h;
        synchronized (this) {
            done = true;
            if (handle == null || pins > 0) {
                return;
            }
            h = handle;
            handle = null;
        }
        release(h);
    }

    private synchronized cl_event pin() {
        if (handle == null) {
            return null;
        }
        pins++;
        return handle;
    }

    private void unpin(boolean finished) {
        cl_event h = null;
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
            release(h);
        }
    }

    private void release(cl_event h) {
        try {
            CL.clReleaseEvent(h);
        } catch (CLException e) {
            // A failed release leaks at most one event; nothing the caller can do about it.
            org.slf4j.LoggerFactory.getLogger(OpenClEvent.class).warn("{}: clReleaseEvent failed: {}",
                    device.context(), CL.stringFor_errorCode(e.getStatus()));
        } finally {
            device.eventReleased();
        }
    }

    @Override
    public String toString() {
        return "OpenClEvent[" + device.context() + (done ? ", done" : "") + "]";
    }
}
