package org.depengine.device.cuda;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import jcuda.CudaException;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUevent_flags;
import jcuda.driver.CUhostFn;
import jcuda.driver.CUresult;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;
import jcuda.driver.JCudaDriver;
import jcuda.jcublas.JCublas2;
import jcuda.jcublas.cublasHandle;
import jcuda.runtime.cudaStream_t;

/**
 * The real {@link CudaDriver}: JCuda's driver API and JCublas2, with exceptions enabled. Loading the
 * classes of this binding loads no native code; {@link #init()} does, through {@link JCudaNatives}.
 */
final class JCudaDriverBinding implements CudaDriver {
    /** One shared host function: the Runnable to run travels as the user data. */
    private static final CUhostFn RUN_USER_DATA = data -> ((Runnable) data).run();

    private static final String NOT_READY = CUresult.stringFor(CUresult.CUDA_ERROR_NOT_READY);

    private volatile boolean cublasLoaded;

    @Override
    public void init() {
        JCudaNatives.loadDriver();
        JCudaDriver.setExceptionsEnabled(true);
        JCudaDriver.cuInit(0);
    }

    @Override
    public int deviceCount() {
        int[] n = new int[1];
        JCudaDriver.cuDeviceGetCount(n);
        return n[0];
    }

    @Override
    public String deviceName(int ordinal) {
        byte[] name = new byte[256];
        JCudaDriver.cuDeviceGetName(name, name.length, device(ordinal));
        int len = 0;
        while (len < name.length && name[len] != 0) {
            len++;
        }
        return new String(name, 0, len, StandardCharsets.UTF_8);
    }

    private static CUdevice device(int ordinal) {
        CUdevice d = new CUdevice();
        JCudaDriver.cuDeviceGet(d, ordinal);
        return d;
    }

    @Override
    public CUcontext retainPrimaryContext(int ordinal) {
        CUcontext ctx = new CUcontext();
        JCudaDriver.cuDevicePrimaryCtxRetain(ctx, device(ordinal));
        return ctx;
    }

    @Override
    public void releasePrimaryContext(int ordinal) {
        JCudaDriver.cuDevicePrimaryCtxRelease(device(ordinal));
    }

    @Override
    public void setCurrent(CUcontext ctx) {
        JCudaDriver.cuCtxSetCurrent(ctx);
    }

    @Override
    public CUstream createStream() {
        CUstream s = new CUstream();
        JCudaDriver.cuStreamCreate(s, CUstream_flags.CU_STREAM_NON_BLOCKING);
        return s;
    }

    @Override
    public void destroyStream(CUstream stream) {
        JCudaDriver.cuStreamDestroy(stream);
    }

    @Override
    public void synchronizeStream(CUstream stream) {
        JCudaDriver.cuStreamSynchronize(stream);
    }

    @Override
    public CUevent createEvent() {
        CUevent e = new CUevent();
        JCudaDriver.cuEventCreate(e, CUevent_flags.CU_EVENT_DISABLE_TIMING);
        return e;
    }

    @Override
    public void destroyEvent(CUevent event) {
        JCudaDriver.cuEventDestroy(event);
    }

    @Override
    public void recordEvent(CUevent event, CUstream stream) {
        JCudaDriver.cuEventRecord(event, stream);
    }

    @Override
    public boolean queryEvent(CUevent event) {
        try {
            JCudaDriver.cuEventQuery(event);
            return true;
        } catch (CudaException e) {
            // With exceptions enabled JCuda turns CUDA_ERROR_NOT_READY into an exception too.
            if (NOT_READY.equals(e.getMessage())) {
                return false;
            }
            throw e;
        }
    }

    @Override
    public void synchronizeEvent(CUevent event) {
        JCudaDriver.cuEventSynchronize(event);
    }

    @Override
    public void streamWaitEvent(CUstream stream, CUevent event) {
        JCudaDriver.cuStreamWaitEvent(stream, event, 0);
    }

    @Override
    public void launchHostFunc(CUstream stream, Runnable fn) {
        JCudaDriver.cuLaunchHostFunc(stream, RUN_USER_DATA, fn);
    }

    @Override
    public CUdeviceptr memAlloc(long bytes) {
        CUdeviceptr p = new CUdeviceptr();
        JCudaDriver.cuMemAlloc(p, bytes);
        return p;
    }

    @Override
    public void memFree(CUdeviceptr ptr) {
        JCudaDriver.cuMemFree(ptr);
    }

    @Override
    public Pointer memHostAlloc(long bytes) {
        Pointer p = new Pointer();
        JCudaDriver.cuMemHostAlloc(p, bytes, 0);
        return p;
    }

    @Override
    public ByteBuffer hostBuffer(Pointer host, long bytes) {
        return host.getByteBuffer(0, bytes).order(ByteOrder.nativeOrder());
    }

    @Override
    public void memFreeHost(Pointer host) {
        JCudaDriver.cuMemFreeHost(host);
    }

    @Override
    public void copyHtoDAsync(CUdeviceptr dst, long dstOffset, ByteBuffer src, CUstream stream) {
        // slice(): the pointer then starts at the buffer's position whatever JCuda's position rule.
        JCudaDriver.cuMemcpyHtoDAsync(dst.withByteOffset(dstOffset), Pointer.to(src.slice()), src.remaining(), stream);
    }

    @Override
    public void copyDtoHAsync(ByteBuffer dst, CUdeviceptr src, long srcOffset, CUstream stream) {
        JCudaDriver.cuMemcpyDtoHAsync(Pointer.to(dst.slice()), src.withByteOffset(srcOffset), dst.remaining(), stream);
    }

    @Override
    public cublasHandle cublasCreate() {
        if (!cublasLoaded) {
            synchronized (this) {
                if (!cublasLoaded) {
                    JCudaNatives.loadCublas();
                    JCublas2.setExceptionsEnabled(true);
                    cublasLoaded = true;
                }
            }
        }
        cublasHandle h = new cublasHandle();
        JCublas2.cublasCreate(h);
        return h;
    }

    @Override
    public void cublasSetStream(cublasHandle handle, CUstream stream) {
        JCublas2.cublasSetStream(handle, new cudaStream_t(stream));
    }

    @Override
    public void cublasDestroy(cublasHandle handle) {
        JCublas2.cublasDestroy(handle);
    }
}
