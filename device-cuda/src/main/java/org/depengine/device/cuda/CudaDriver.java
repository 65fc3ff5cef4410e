package org.depengine.device.cuda;

import java.nio.ByteBuffer;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.CUstream;
import jcuda.jcublas.cublasHandle;

/**
 * Every native CUDA call this module makes, behind one seam: the real {@link JCudaDriverBinding}, or a
 * mock in unit tests (there is no GPU in CI). The handle types are JCuda's plain Java classes, which
 * load no native code when created.
 *
 * <p>Errors are {@link jcuda.CudaException}s (JCuda with exceptions enabled); {@link #init()} may also
 * throw {@link LinkageError} when the native libraries cannot be loaded. Calls other than {@link #init()}
 * expect the right context to be current on the calling thread ({@link #setCurrent}).
 */
interface CudaDriver {
    /** Loads the native libraries and calls {@code cuInit(0)}. */
    void init();

    /** {@code cuDeviceGetCount}. */
    int deviceCount();

    /** {@code cuDeviceGetName}. */
    String deviceName(int ordinal);

    /** {@code cuDevicePrimaryCtxRetain}: the device's primary context (shared with the runtime API and cuBLAS). */
    CUcontext retainPrimaryContext(int ordinal);

    /** {@code cuDevicePrimaryCtxRelease}. */
    void releasePrimaryContext(int ordinal);

    /** {@code cuCtxSetCurrent}: makes {@code ctx} current on the calling thread. */
    void setCurrent(CUcontext ctx);

    /** {@code cuStreamCreate(CU_STREAM_NON_BLOCKING)}: no implicit sync with the legacy default stream. */
    CUstream createStream();

    /** {@code cuStreamDestroy}. */
    void destroyStream(CUstream stream);

    /** {@code cuStreamSynchronize}. */
    void synchronizeStream(CUstream stream);

    /** {@code cuEventCreate(CU_EVENT_DISABLE_TIMING)}: timing-free events are the cheap kind. */
    CUevent createEvent();

    /** {@code cuEventDestroy}. */
    void destroyEvent(CUevent event);

    /** {@code cuEventRecord}. */
    void recordEvent(CUevent event, CUstream stream);

    /** {@code cuEventQuery}: true when complete, false while {@code CUDA_ERROR_NOT_READY}; other results throw. */
    boolean queryEvent(CUevent event);

    /** {@code cuEventSynchronize}. */
    void synchronizeEvent(CUevent event);

    /** {@code cuStreamWaitEvent}: later work on {@code stream} waits for {@code event}, on the device. */
    void streamWaitEvent(CUstream stream, CUevent event);

    /**
     * {@code cuLaunchHostFunc}: runs {@code fn} on a driver thread once the work enqueued so far is done.
     * {@code fn} must not call CUDA.
     */
    void launchHostFunc(CUstream stream, Runnable fn);

    /** {@code cuMemAlloc}. */
    CUdeviceptr memAlloc(long bytes);

    /** {@code cuMemFree}. */
    void memFree(CUdeviceptr ptr);

    /** {@code cuMemHostAlloc}: page-locked host memory, needed for truly asynchronous copies. */
    Pointer memHostAlloc(long bytes);

    /** A direct buffer over host memory from {@link #memHostAlloc}. */
    ByteBuffer hostBuffer(Pointer host, long bytes);

    /** {@code cuMemFreeHost}. */
    void memFreeHost(Pointer host);

    /** {@code cuMemcpyHtoDAsync} of {@code src}'s remaining bytes to {@code dst + dstOffset}. */
    void copyHtoDAsync(CUdeviceptr dst, long dstOffset, ByteBuffer src, CUstream stream);

    /** {@code cuMemcpyDtoHAsync} of {@code dst.remaining()} bytes from {@code src + srcOffset}. */
    void copyDtoHAsync(ByteBuffer dst, CUdeviceptr src, long srcOffset, CUstream stream);

    /** {@code cublasCreate} (loads the cuBLAS bindings on first use). */
    cublasHandle cublasCreate();

    /** {@code cublasSetStream}. */
    void cublasSetStream(cublasHandle handle, CUstream stream);

    /** {@code cublasDestroy}. */
    void cublasDestroy(cublasHandle handle);

    /** {@code cuMemcpyDtoDAsync} of {@code bytes} bytes from {@code src + srcOffset} to {@code dst + dstOffset}. */
    void copyDtoDAsync(CUdeviceptr dst, long dstOffset, CUdeviceptr src, long srcOffset, long bytes, CUstream stream);

    /** {@code cuMemsetD32Async}: {@code count} 32-bit words at {@code dst + dstOffset} set to {@code value}. */
    void memsetD32Async(CUdeviceptr dst, long dstOffset, int value, long count, CUstream stream);

    /**
     * {@code cublasSgemm} (column-major, scalars on the host): {@code C = alpha·op(A)·op(B) + beta·C}
     * with {@code op} given by {@code transa}/{@code transb} ({@code cublasOperation} values).
     */
    void cublasSgemm(cublasHandle handle, int transa, int transb, int m, int n, int k, float alpha, CUdeviceptr a,
            int lda, CUdeviceptr b, int ldb, float beta, CUdeviceptr c, int ldc);

    /** {@code cublasSaxpy} with unit strides: {@code y += alpha·x} over {@code n} floats. */
    void cublasSaxpy(cublasHandle handle, int n, float alpha, CUdeviceptr x, CUdeviceptr y);

    /**
     * Compiles CUDA C++ {@code source} to PTX with NVRTC (loading its bindings on first use).
     *
     * @throws IllegalArgumentException if the source does not compile (the message holds NVRTC's log)
     */
    String compileToPtx(String source, String programName);

    /** {@code cuModuleLoadData} of PTX text into the current context. */
    CUmodule loadModule(String ptx);

    /** {@code cuModuleGetFunction}. */
    CUfunction moduleFunction(CUmodule module, String name);

    /**
     * {@code cuLaunchKernel} on a 1-D grid. {@code args} are the kernel's parameters in order:
     * {@link CUdeviceptr}, {@link Integer}, {@link Long} or {@link Float}.
     */
    void launchKernel(CUfunction function, int gridX, int blockX, int sharedBytes, CUstream stream, Object... args);
}
