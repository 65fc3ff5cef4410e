package org.depengine.device.cuda;

import jcuda.CudaException;
import jcuda.driver.CUevent;
import jcuda.driver.CUstream;
import org.depengine.api.EngineException;
import org.depengine.device.common.HandleEvent;

/**
 * An event recorded on a {@link CudaStream}. Its {@code CUevent} goes back to the device's pool as soon
 * as the marked work is seen done ({@link HandleEvent} does the bookkeeping); the wrapper then stays
 * done, so it can never touch the recycled event, which may by then mark other work.
 */
public final class CudaEvent extends HandleEvent<CUevent> {
    private final CudaDevice device;

    CudaEvent(CudaDevice device, CUevent handle) {
        super(device.context(), handle);
        this.device = device;
    }

    CudaDevice device() {
        return device;
    }

    /** {@code cuEventQuery}. */
    @Override
    protected boolean query(CUevent h) {
        try {
            device.bind();
            return device.driver().queryEvent(h);
        } catch (CudaException e) {
            throw failed("querying", e);
        }
    }

    /** {@code cuEventSynchronize}. */
    @Override
    protected void hostWait(CUevent h) {
        try {
            device.bind();
            device.driver().synchronizeEvent(h);
        } catch (CudaException e) {
            throw failed("waiting for", e);
        }
    }

    @Override
    protected void recycle(CUevent h) {
        device.events().release(h);
    }

    /** {@code cuStreamWaitEvent} on {@code stream}; nothing when already done. */
    void enqueueWait(CUstream stream) {
        withHandle(h -> device.driver().streamWaitEvent(stream, h));
    }

    private EngineException failed(String doing, CudaException e) {
        return new EngineException("CUDA error on " + device.context() + " while " + doing + " an event: "
                + e.getMessage(), e);
    }
}
