package org.depengine.device.opencl;

import static org.jocl.CL.CL_COMPLETE;
import static org.jocl.CL.CL_EVENT_COMMAND_EXECUTION_STATUS;
import static org.jocl.CL.clEnqueueBarrierWithWaitList;
import static org.jocl.CL.clGetEventInfo;
import static org.jocl.CL.clWaitForEvents;

import org.depengine.api.EngineException;
import org.depengine.device.common.HandleEvent;
import org.jocl.CL;
import org.jocl.CLException;
import org.jocl.Pointer;
import org.jocl.Sizeof;
import org.jocl.cl_command_queue;
import org.jocl.cl_event;

/**
 * A marker's {@code cl_event}, released as soon as it is seen complete ({@link HandleEvent} does the
 * bookkeeping). A {@code cl_event} cannot be recorded again, so each wrapper owns exactly one.
 */
public final class OpenClEvent extends HandleEvent<cl_event> {
    private final OpenClDevice device;

    OpenClEvent(OpenClDevice device, cl_event handle) {
        super(device.context(), handle);
        this.device = device;
    }

    OpenClDevice device() {
        return device;
    }

    /** {@code CL_EVENT_COMMAND_EXECUTION_STATUS}; a negative status is the work's failure. */
    @Override
    protected boolean query(cl_event h) {
        int[] status = new int[1];
        try {
            clGetEventInfo(h, CL_EVENT_COMMAND_EXECUTION_STATUS, Sizeof.cl_int, Pointer.to(status), null);
        } catch (CLException e) {
            throw failed(e.getStatus());
        }
        if (status[0] < 0) {
            throw failed(status[0]);
        }
        return status[0] == CL_COMPLETE;
    }

    /** {@code clWaitForEvents}; CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST means the work failed. */
    @Override
    protected void hostWait(cl_event h) {
        try {
            clWaitForEvents(1, new cl_event[] {h});
        } catch (CLException e) {
            throw failed(e.getStatus());
        }
    }

    @Override
    protected void recycle(cl_event h) {
        device.releaseEvent(h);
    }

    /** Enqueues a barrier on {@code queue} waiting for this event; nothing if it is already done. */
    void enqueueWait(cl_command_queue queue) {
        withHandle(h -> clEnqueueBarrierWithWaitList(queue, 1, new cl_event[] {h}, null));
    }

    private EngineException failed(int status) {
        return new EngineException("OpenCL work on " + device.context() + " failed: "
                + CL.stringFor_errorCode(status < 0 ? status : -1));
    }
}
