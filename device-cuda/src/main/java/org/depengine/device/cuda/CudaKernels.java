package org.depengine.device.cuda;

import java.util.HashMap;
import java.util.Map;
import jcuda.CudaException;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import org.depengine.api.EngineException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The primitives' kernels on one device, loaded into the device's primary context
 * ({@code cuModuleLoadData}) on first use, once: the shipped PTX ({@link PrimitiveKernels#ptx()}), which
 * needs only the driver; where the driver refuses it (a driver older than the nvcc that built it), the
 * source compiled for this driver by NVRTC. A failure is remembered and reported again on later calls
 * rather than loading again. Thread-safe.
 */
final class CudaKernels {
    private static final Logger LOG = LoggerFactory.getLogger(CudaKernels.class);

    /** Threads per block of the element-wise kernels. */
    static final int BLOCK = 256;
    /** Most blocks of an element-wise launch; the kernels stride over the rest. */
    static final int MAX_GRID = 65_535;
    /** The largest block of a per-row reduction. */
    static final int MAX_ROW_BLOCK = 256;

    private final CudaDevice device;
    private Map<String, CUfunction> functions; // guarded by this
    private RuntimeException failure; // guarded by this
    private int loads; // guarded by this

    CudaKernels(CudaDevice device) {
        this.device = device;
    }

    /**
     * Enqueues kernel {@code name} on {@code stream} over {@code n} elements (none if {@code n} is 0).
     */
    void launchElementwise(CudaStream stream, String name, long n, Object... args) {
        if (n == 0) {
            return;
        }
        long blocks = Math.min(MAX_GRID, (n + BLOCK - 1) / BLOCK);
        launch(stream, name, (int) blocks, BLOCK, 0, args);
    }

    /** Enqueues a per-row reduction kernel: one block of {@link #rowBlock(int)} threads per row. */
    void launchPerRow(CudaStream stream, String name, int rows, int cols, Object... args) {
        if (rows == 0) {
            return;
        }
        int block = rowBlock(cols);
        launch(stream, name, rows, block, block * Float.BYTES, args);
    }

    /** A power of two, at most {@link #MAX_ROW_BLOCK}, no larger than needed for {@code cols} columns. */
    static int rowBlock(int cols) {
        int needed = cols <= 1 ? 1 : Integer.highestOneBit(cols - 1) << 1;
        return Math.min(MAX_ROW_BLOCK, needed);
    }

    /**
     * Enqueues {@code sgemm_f32}: row-major {@code C = alpha·op(A)·op(B) + beta·C}, one
     * {@link PrimitiveKernels#SGEMM_TILE}-square tile of {@code C} per block.
     *
     * @throws IllegalArgumentException if {@code C} has more tiles than a grid has blocks
     */
    void launchSgemm(CudaStream stream, boolean transA, boolean transB, int m, int n, int k, float alpha,
            CUdeviceptr a, CUdeviceptr b, float beta, CUdeviceptr c) {
        int tile = PrimitiveKernels.SGEMM_TILE;
        long tiles = ((m + tile - 1L) / tile) * ((n + tile - 1L) / tile);
        if (tiles > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("sgemm of a " + m + " x " + n + " result needs " + tiles
                    + " blocks of the fallback kernel, more than a grid holds: install cuBLAS for it");
        }
        launch(stream, "sgemm_f32", (int) tiles, tile * tile, 0, m, n, k, transA ? 1 : 0, transB ? 1 : 0, alpha, a, b,
                beta, c);
    }

    private void launch(CudaStream stream, String name, int grid, int block, int shared, Object... args) {
        CUfunction f = function(name);
        device.bind();
        try {
            device.driver().launchKernel(f, grid, block, shared, stream.cuStream(), args);
        } catch (CudaException e) {
            throw new EngineException("CUDA error on " + stream + ": could not launch kernel '" + name + "': "
                    + e.getMessage(), e);
        }
    }

    /** How many times the module was built (at most once, unless it failed). */
    synchronized int loads() {
        return loads;
    }

    private synchronized CUfunction function(String name) {
        if (functions == null) {
            if (failure != null) {
                throw new EngineException("the CUDA primitive kernels are not usable on " + device.context() + ": "
                        + failure.getMessage(), failure);
            }
            try {
                functions = load();
            } catch (RuntimeException | LinkageError e) {
                failure = e instanceof RuntimeException re ? re : new IllegalStateException(e.toString(), e);
                throw new EngineException("the CUDA primitive kernels are not usable on " + device.context() + ": "
                        + e.getMessage(), e);
            }
        }
        CUfunction f = functions.get(name);
        if (f == null) {
            throw new IllegalStateException("no kernel '" + name + "' in " + PrimitiveKernels.PROGRAM_NAME);
        }
        return f;
    }

    private Map<String, CUfunction> load() {
        loads++;
        device.bind();
        CudaDriver driver = device.driver();
        CUmodule module;
        try {
            module = driver.loadModule(PrimitiveKernels.ptx());
            LOG.debug("{}: loaded the precompiled primitive kernels", device.context());
        } catch (CudaException refused) {
            module = compiled(driver, refused);
        }
        Map<String, CUfunction> map = new HashMap<>();
        for (String name : PrimitiveKernels.NAMES) {
            map.put(name, driver.moduleFunction(module, name));
        }
        return map;
    }

    /** The module NVRTC compiles from the source, for a driver that refused the shipped PTX. */
    private CUmodule compiled(CudaDriver driver, CudaException refused) {
        String ptx;
        try {
            ptx = driver.compileToPtx(PrimitiveKernels.source(), PrimitiveKernels.PROGRAM_NAME);
        } catch (RuntimeException | LinkageError e) {
            IllegalStateException failure = new IllegalStateException("the driver refused the shipped PTX ("
                    + refused.getMessage() + "; it needs a driver as new as the nvcc named in the first line of "
                    + PrimitiveKernels.PTX_NAME + "), and NVRTC, which would compile the kernels for this driver, "
                    + "failed: " + e.getMessage() + ". Update the NVIDIA driver, or install NVRTC (libnvrtc.so.12 "
                    + "of the CUDA 12 toolkit)", e);
            failure.addSuppressed(refused);
            throw failure;
        }
        CUmodule module = driver.loadModule(ptx);
        LOG.info("{}: the driver refused the shipped PTX ({}); compiled the primitive kernels with NVRTC instead",
                device.context(), refused.getMessage());
        return module;
    }
}
