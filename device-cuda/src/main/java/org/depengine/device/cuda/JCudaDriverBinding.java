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
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.CUhostFn;
import jcuda.driver.CUresult;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;
import jcuda.driver.JCudaDriver;
import jcuda.jcublas.JCublas2;
import jcuda.jcublas.cublasHandle;
import jcuda.nvrtc.JNvrtc;
import jcuda.nvrtc.nvrtcProgram;
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
    private volatile boolean nvrtcLoaded;

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

    @Override
    public void copyDtoDAsync(CUdeviceptr dst, long dstOffset, CUdeviceptr src, long srcOffset, long bytes,
            CUstream stream) {
        JCudaDriver.cuMemcpyDtoDAsync(dst.withByteOffset(dstOffset), src.withByteOffset(srcOffset), bytes, stream);
    }

    @Override
    public void memsetD32Async(CUdeviceptr dst, long dstOffset, int value, long count, CUstream stream) {
        JCudaDriver.cuMemsetD32Async(dst.withByteOffset(dstOffset), value, count, stream);
    }

    @Override
    public void cublasSgemm(cublasHandle handle, int transa, int transb, int m, int n, int k, float alpha,
            CUdeviceptr a, int lda, CUdeviceptr b, int ldb, float beta, CUdeviceptr c, int ldc) {
        JCublas2.cublasSgemm(handle, transa, transb, m, n, k, Pointer.to(new float[] {alpha}), a, lda, b, ldb,
                Pointer.to(new float[] {beta}), c, ldc);
    }

    @Override
    public void cublasSaxpy(cublasHandle handle, int n, float alpha, CUdeviceptr x, CUdeviceptr y) {
        JCublas2.cublasSaxpy(handle, n, Pointer.to(new float[] {alpha}), x, 1, y, 1);
    }

    @Override
    public String compileToPtx(String source, String programName) {
        if (!nvrtcLoaded) {
            synchronized (this) {
                if (!nvrtcLoaded) {
                    JCudaNatives.loadNvrtc();
                    JNvrtc.setExceptionsEnabled(true);
                    nvrtcLoaded = true;
                }
            }
        }
        nvrtcProgram program = new nvrtcProgram();
        JNvrtc.nvrtcCreateProgram(program, source, programName, 0, null, null);
        try {
            try {
                JNvrtc.nvrtcCompileProgram(program, 0, null);
            } catch (CudaException e) {
                String[] log = new String[1];
                JNvrtc.nvrtcGetProgramLog(program, log);
                throw new IllegalArgumentException("NVRTC could not compile " + programName + " (" + e.getMessage()
                        + "):\n" + log[0], e);
            }
            String[] ptx = new String[1];
            JNvrtc.nvrtcGetPTX(program, ptx);
            return ptx[0];
        } finally {
            JNvrtc.nvrtcDestroyProgram(program);
        }
    }

    @Override
    public CUmodule loadModule(String ptx) {
        CUmodule module = new CUmodule();
        JCudaDriver.cuModuleLoadData(module, ptx);
        return module;
    }

    @Override
    public CUfunction moduleFunction(CUmodule module, String name) {
        CUfunction f = new CUfunction();
        JCudaDriver.cuModuleGetFunction(f, module, name);
        return f;
    }

    @Override
    public void launchKernel(CUfunction function, int gridX, int blockX, int sharedBytes, CUstream stream,
            Object... args) {
        Pointer[] params = new Pointer[args.length];
        for (int i = 0; i < args.length; i++) {
            params[i] = parameter(i, args[i]);
        }
        JCudaDriver.cuLaunchKernel(function, gridX, 1, 1, blockX, 1, 1, sharedBytes, stream, Pointer.to(params), null);
    }

    private static Pointer parameter(int index, Object arg) {
        if (arg instanceof CUdeviceptr p) {
            return Pointer.to(p);
        } else if (arg instanceof Integer v) {
            return Pointer.to(new int[] {v});
        } else if (arg instanceof Long v) {
            return Pointer.to(new long[] {v});
        } else if (arg instanceof Float v) {
            return Pointer.to(new float[] {v});
        }
        throw new IllegalArgumentException("kernel parameter " + index + " has unsupported type "
                + (arg == null ? "null" : arg.getClass().getName()));
    }
}
