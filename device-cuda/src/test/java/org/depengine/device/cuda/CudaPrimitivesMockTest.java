package org.depengine.device.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyFloat;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.ArgumentMatchers.same;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Random;
import jcuda.CudaException;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.CUstream;
import jcuda.jcublas.cublasHandle;
import jcuda.jcublas.cublasOperation;
import org.depengine.api.Context;
import org.depengine.api.EngineException;
import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.StreamKind;
import org.depengine.api.device.primitive.Activation;
import org.depengine.api.device.primitive.Elementwise;
import org.depengine.api.device.primitive.Fill;
import org.depengine.api.device.primitive.Matmul;
import org.depengine.api.device.primitive.Memcpy;
import org.depengine.api.device.primitive.Reduce;
import org.depengine.api.device.primitive.SoftmaxCrossEntropy;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The CUDA primitives on a mocked driver (no GPU needed): which driver, cuBLAS and kernel calls each
 * primitive makes, with which arguments. The row-major to column-major mapping of {@code sgemm} is
 * checked by running the captured cuBLAS call through a plain column-major GEMM on the host. JCuda
 * handles compare equal by native pointer (all 0 here), so handles are matched with {@code same(...)}.
 */
class CudaPrimitivesMockTest {
    private CudaDriver driver;
    private CudaDevice device;
    private CudaStream stream;
    private CUstream cuStream;
    private final cublasHandle handle = new cublasHandle();
    private final Map<String, CUfunction> functions = new HashMap<>();
    private final Map<CUfunction, String> functionNames = new IdentityHashMap<>();

    @BeforeEach
    void setUp() {
        driver = mock(CudaDriver.class);
        when(driver.deviceName(0)).thenReturn("Mock GPU");
        when(driver.retainPrimaryContext(0)).thenReturn(new CUcontext());
        when(driver.createStream()).thenAnswer(inv -> {
            cuStream = new CUstream();
            return cuStream;
        });
        when(driver.memAlloc(anyLong())).thenAnswer(inv -> new CUdeviceptr());
        when(driver.cublasCreate()).thenReturn(handle);
        when(driver.compileToPtx(anyString(), anyString())).thenReturn("// ptx");
        when(driver.loadModule(anyString())).thenReturn(new CUmodule());
        when(driver.moduleFunction(any(), anyString())).thenAnswer(inv -> {
            CUfunction f = new CUfunction();
            functions.put(inv.getArgument(1), f);
            functionNames.put(f, inv.getArgument(1));
            return f;
        });
        device = new CudaDevice(Context.of("cuda", 0), driver, 0);
        stream = device.createStream(StreamKind.COMPUTE);
    }

    private CudaBuffer floats(int n) {
        return device.allocate(Math.max(1, n) * 4L);
    }

    @ParameterizedTest(name = "transA={0} transB={1}")
    @CsvSource({"false,false", "true,false", "false,true", "true,true"})
    void sgemmIsOneCublasCallThatComputesTheRowMajorProduct(boolean transA, boolean transB) {
        int m = 3;
        int n = 5;
        int k = 4;
        CudaBuffer a = floats(m * k);
        CudaBuffer b = floats(k * n);
        CudaBuffer c = floats(m * n);
        Random rnd = new Random(3);
        Map<CUdeviceptr, float[]> memory = new IdentityHashMap<>();
        memory.put(a.ptr(), random(rnd, m * k));
        memory.put(b.ptr(), random(rnd, k * n));
        memory.put(c.ptr(), random(rnd, m * n));
        float[] expected = rowMajorReference(transA, transB, m, n, k, 1.5f, memory.get(a.ptr()), memory.get(b.ptr()),
                0.25f, memory.get(c.ptr()));
        // Play cuBLAS: a column-major GEMM over the captured arguments.
        doAnswer(inv -> {
            columnMajorSgemm(inv.getArgument(1), inv.getArgument(2), inv.getArgument(3), inv.getArgument(4),
                    inv.getArgument(5), inv.getArgument(6), memory.get(inv.getArgument(7)), inv.getArgument(8),
                    memory.get(inv.getArgument(9)), inv.getArgument(10), inv.getArgument(11),
                    memory.get(inv.getArgument(12)), inv.getArgument(13));
            return null;
        }).when(driver).cublasSgemm(any(), anyInt(), anyInt(), anyInt(), anyInt(), anyInt(), anyFloat(), any(), anyInt(),
                any(), anyInt(), anyFloat(), any(), anyInt());

        device.requirePrimitive(Matmul.class).sgemm(stream, transA, transB, m, n, k, 1.5f, a, b, 0.25f, c);

        verify(driver).cublasSetStream(same(handle), same(cuStream));
        verify(driver).cublasSgemm(same(handle), eq(transB ? cublasOperation.CUBLAS_OP_T : cublasOperation.CUBLAS_OP_N),
                eq(transA ? cublasOperation.CUBLAS_OP_T : cublasOperation.CUBLAS_OP_N), eq(n), eq(m), eq(k), eq(1.5f),
                same(b.ptr()), eq(transB ? k : n), same(a.ptr()), eq(transA ? m : k), eq(0.25f), same(c.ptr()), eq(n));
        float[] got = memory.get(c.ptr());
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], got[i], 1e-5f, "C element " + i);
        }
    }

    @Test
    void sgemmWithoutAProductOnlyScalesC() {
        CudaBuffer c = floats(6);
        CudaBuffer none = floats(0);
        Matmul mm = device.requirePrimitive(Matmul.class);
        mm.sgemm(stream, false, false, 2, 3, 0, 1f, none, none, 0f, c);
        verify(driver).memsetD32Async(same(c.ptr()), eq(0L), eq(0), eq(6L), same(cuStream));
        mm.sgemm(stream, false, false, 2, 3, 0, 1f, none, none, 1f, c);
        mm.sgemm(stream, false, false, 2, 3, 0, 1f, none, none, 2f, c);
        verify(driver).launchKernel(same(functions.get("scale_f32")), eq(1), eq(CudaKernels.BLOCK), eq(0),
                same(cuStream), eq(6L), eq(2f), same(c.ptr()), same(c.ptr()));
        mm.sgemm(stream, false, false, 0, 3, 2, 1f, none, c, 0f, floats(0));
        verify(driver, never()).cublasSgemm(any(), anyInt(), anyInt(), anyInt(), anyInt(), anyInt(), anyFloat(), any(),
                anyInt(), any(), anyInt(), anyFloat(), any(), anyInt());
        verify(driver, never()).cublasCreate();
    }

    @Test
    void axpyIsCublasSaxpyAndFillIsAMemsetOfTheFloatBits() {
        CudaBuffer x = floats(10);
        CudaBuffer y = floats(10);
        device.requirePrimitive(Elementwise.class).axpy(stream, 10, 0.5f, x, y);
        verify(driver).cublasSaxpy(same(handle), eq(10), eq(0.5f), same(x.ptr()), same(y.ptr()));
        device.requirePrimitive(Elementwise.class).axpy(stream, 0, 0.5f, x, y);
        verify(driver, times(1)).cublasSaxpy(any(), anyInt(), anyFloat(), any(), any());

        device.requirePrimitive(Fill.class).fill(stream, x, 3, 5, 1.5f);
        verify(driver).memsetD32Async(same(x.ptr()), eq(12L), eq(Float.floatToRawIntBits(1.5f)), eq(5L), same(cuStream));
    }

    @Test
    void kernelsAreLoadedOncePerDeviceFromTheShippedPtxAndLaunchedWithTheirArguments() {
        CudaBuffer x = floats(1000);
        CudaBuffer y = floats(1000);
        Activation act = device.requirePrimitive(Activation.class);
        act.relu(stream, 1000, x, y);
        act.relu(stream, 1000, y, y);
        device.requirePrimitive(Elementwise.class).add(stream, 1000, x, y, y);
        verify(driver, times(1)).loadModule(PrimitiveKernels.ptx());
        verify(driver, never()).compileToPtx(anyString(), anyString());
        assertEquals(PrimitiveKernels.NAMES.size(), functions.size());
        assertEquals(1, device.kernels().loads());
        verify(driver).launchKernel(same(functions.get("relu_f32")), eq(4), eq(256), eq(0), same(cuStream), eq(1000L),
                same(x.ptr()), same(y.ptr()));
        verify(driver).launchKernel(same(functions.get("add_f32")), eq(4), eq(256), eq(0), same(cuStream), eq(1000L),
                same(x.ptr()), same(y.ptr()), same(y.ptr()));
        // Nothing to do: no launch.
        act.relu(stream, 0, x, y);
        verify(driver, times(3)).launchKernel(any(), anyInt(), anyInt(), anyInt(), any(), any(Object[].class));
    }

    @Test
    void aDriverThatRefusesTheShippedPtxGetsTheSourceCompiledByNvrtc() {
        refuseTheShippedPtx();
        device.requirePrimitive(Activation.class).relu(stream, 4, floats(4), floats(4));
        verify(driver, times(1)).compileToPtx(PrimitiveKernels.source(), PrimitiveKernels.PROGRAM_NAME);
        verify(driver, times(1)).loadModule("// ptx");
        assertEquals(1, device.kernels().loads());
    }

    @Test
    void perRowKernelsRunOneBlockPerRow() {
        CudaBuffer logits = floats(50);
        CudaBuffer labels = floats(5);
        CudaBuffer loss = floats(5);
        device.requirePrimitive(SoftmaxCrossEntropy.class).lossAndGradient(stream, 5, 10, logits, labels, loss, null,
                0.2f);
        verify(driver).launchKernel(same(functions.get("softmax_xent_f32")), eq(5), eq(16), eq(64), same(cuStream),
                eq(10), same(logits.ptr()), same(labels.ptr()), same(loss.ptr()), same(logits.ptr()), eq(0), eq(0.2f));
        device.requirePrimitive(Reduce.class).rowSums(stream, 5, 1000, floats(5000), loss);
        verify(driver).launchKernel(same(functions.get("row_sums_f32")), eq(5), eq(256), eq(1024), same(cuStream),
                eq(1000), any(), same(loss.ptr()));
        assertEquals(1, CudaKernels.rowBlock(1));
        assertEquals(4, CudaKernels.rowBlock(3));
        assertEquals(256, CudaKernels.rowBlock(100_000));
    }

    @Test
    void aKernelCompileFailureIsReportedAndRemembered() {
        refuseTheShippedPtx();
        when(driver.compileToPtx(anyString(), anyString()))
                .thenThrow(new IllegalArgumentException("NVRTC could not compile: error: expected a ';'"));
        CudaBuffer x = floats(4);
        Activation act = device.requirePrimitive(Activation.class);
        EngineException e = assertThrows(EngineException.class, () -> act.relu(stream, 4, x, x));
        assertTrue(e.getMessage().contains("expected a ';'") && e.getMessage().contains("cuda:0"), e.getMessage());
        e = assertThrows(EngineException.class, () -> act.relu(stream, 4, x, x));
        assertTrue(e.getMessage().contains("expected a ';'"), e.getMessage());
        verify(driver, times(1)).compileToPtx(anyString(), anyString());
        verify(driver, times(1)).loadModule(PrimitiveKernels.ptx());
    }

    @Test
    void withoutNvrtcADriverThatRefusesThePtxSaysBothCausesAndWhatIsNeeded() {
        refuseTheShippedPtx();
        when(driver.compileToPtx(anyString(), anyString()))
                .thenThrow(new UnsatisfiedLinkError("libnvrtc.so.12: cannot open shared object file"));
        CudaBuffer x = floats(4);
        EngineException e = assertThrows(EngineException.class,
                () -> device.requirePrimitive(Reduce.class).columnSums(stream, 1, 4, x, floats(4)));
        assertTrue(e.getMessage().contains("CUDA_ERROR_UNSUPPORTED_PTX_VERSION")
                && e.getMessage().contains("libnvrtc.so.12: cannot open") && e.getMessage().contains("Update the NVIDIA driver"),
                e.getMessage());
    }

    @Test
    void withoutCublasSgemmAndAxpyRunOnTheKernels() {
        when(driver.cublasCreate()).thenThrow(new UnsatisfiedLinkError("libcublas.so.12: cannot open shared object file"));
        CudaBuffer a = floats(40 * 3);
        CudaBuffer b = floats(3 * 20);
        CudaBuffer c = floats(40 * 20);
        Matmul mm = device.requirePrimitive(Matmul.class);
        mm.sgemm(stream, true, false, 40, 20, 3, 2f, a, b, 0.5f, c);
        // 40 x 20 in 16-square tiles: 3 x 2 blocks of 256 threads, row-major, transA passed as 1.
        verify(driver).launchKernel(same(functions.get("sgemm_f32")), eq(6), eq(256), eq(0), same(cuStream), eq(40),
                eq(20), eq(3), eq(1), eq(0), eq(2f), same(a.ptr()), same(b.ptr()), eq(0.5f), same(c.ptr()));
        device.requirePrimitive(Elementwise.class).axpy(stream, 10, 0.5f, a, b);
        verify(driver).launchKernel(same(functions.get("axpy_f32")), eq(1), eq(256), eq(0), same(cuStream), eq(10L),
                eq(0.5f), same(a.ptr()), same(b.ptr()));
        mm.sgemm(stream, false, false, 40, 20, 3, 1f, a, b, 0f, c);
        // Found out once: later calls go straight to the kernels.
        verify(driver, times(1)).cublasCreate();
        verify(driver, never()).cublasSgemm(any(), anyInt(), anyInt(), anyInt(), anyInt(), anyInt(), anyFloat(), any(),
                anyInt(), any(), anyInt(), anyFloat(), any(), anyInt());
    }

    @Test
    void aCublasThatLoadsButFailsIsAnErrorNotAFallback() {
        when(driver.cublasCreate()).thenThrow(new CudaException("CUBLAS_STATUS_NOT_INITIALIZED"));
        CudaBuffer x = floats(4);
        EngineException e = assertThrows(EngineException.class,
                () -> device.requirePrimitive(Elementwise.class).axpy(stream, 4, 1f, x, x));
        assertTrue(e.getMessage().contains("CUBLAS_STATUS_NOT_INITIALIZED"), e.getMessage());
        verify(driver, never()).launchKernel(any(), anyInt(), anyInt(), anyInt(), any(), any(Object[].class));
    }

    /** The driver refuses the shipped PTX, as one older than the nvcc that built it does. */
    private void refuseTheShippedPtx() {
        doThrow(new CudaException("CUDA_ERROR_UNSUPPORTED_PTX_VERSION")).when(driver).loadModule(PrimitiveKernels.ptx());
    }

    @Test
    void copiesUseTheDriversAsyncCopies() {
        CudaBuffer a = floats(16);
        CudaBuffer b = floats(16);
        Memcpy copy = device.requirePrimitive(Memcpy.class);
        copy.deviceToDevice(stream, a, 4, b, 8, 20);
        verify(driver).copyDtoDAsync(same(b.ptr()), eq(8L), same(a.ptr()), eq(4L), eq(20L), same(cuStream));
        copy.deviceToDevice(stream, a, 0, b, 0, 0);
        verify(driver, times(1)).copyDtoDAsync(any(), anyLong(), any(), anyLong(), anyLong(), any());
        var host = java.nio.ByteBuffer.allocateDirect(12);
        copy.hostToDevice(stream, host, a, 4);
        verify(driver).copyHtoDAsync(same(a.ptr()), eq(4L), any(), same(cuStream));
        copy.deviceToHost(stream, a, 8, host);
        verify(driver).copyDtoHAsync(any(), same(a.ptr()), eq(8L), same(cuStream));
        assertThrows(IllegalArgumentException.class, () -> copy.deviceToDevice(stream, a, 0, a, 8, 16));
    }

    @Test
    void buffersAndStreamsOfOtherDevicesAreRefused() {
        CudaDevice other = new CudaDevice(Context.of("cuda", 1), driver, 0);
        DeviceBuffer theirs = other.allocate(64);
        CudaBuffer ours = floats(16);
        Elementwise ew = device.requirePrimitive(Elementwise.class);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ew.add(stream, 4, ours, theirs, ours));
        assertTrue(e.getMessage().contains("cuda:1"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> ew.add(other.createStream(StreamKind.COMPUTE), 4, ours, ours, ours));
        assertTrue(e.getMessage().contains("cuda:1") && e.getMessage().contains("cuda:0"), e.getMessage());
        verify(driver, never()).launchKernel(any(), anyInt(), anyInt(), anyInt(), any(), any(Object[].class));
        assertSame(device.requirePrimitive(Matmul.class), device.primitive(Matmul.class).orElseThrow());
    }

    private static float[] random(Random rnd, int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = rnd.nextFloat() * 2 - 1;
        }
        return v;
    }

    private static float[] rowMajorReference(boolean transA, boolean transB, int m, int n, int k, float alpha,
            float[] a, float[] b, float beta, float[] c) {
        float[] out = new float[m * n];
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                double s = 0;
                for (int p = 0; p < k; p++) {
                    float av = transA ? a[p * m + i] : a[i * k + p];
                    float bv = transB ? b[j * k + p] : b[p * n + j];
                    s += (double) av * bv;
                }
                out[i * n + j] = (float) (alpha * s + beta * c[i * n + j]);
            }
        }
        return out;
    }

    /** BLAS semantics, column-major: element (r, c) of a matrix with leading dimension ld is at r + c·ld. */
    private static void columnMajorSgemm(int transa, int transb, int m, int n, int k, float alpha, float[] a, int lda,
            float[] b, int ldb, float beta, float[] c, int ldc) {
        float[] result = c.clone();
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                double s = 0;
                for (int p = 0; p < k; p++) {
                    float av = transa == cublasOperation.CUBLAS_OP_N ? a[i + p * lda] : a[p + i * lda];
                    float bv = transb == cublasOperation.CUBLAS_OP_N ? b[p + j * ldb] : b[j + p * ldb];
                    s += (double) av * bv;
                }
                result[i + j * ldc] = (float) (alpha * s + beta * c[i + j * ldc]);
            }
        }
        System.arraycopy(result, 0, c, 0, c.length);
    }

    @Test
    void theColumnMajorPlayerIsItselfRight() {
        // [1 2; 3 4] column-major is {1, 3, 2, 4}; times the identity gives itself, transposed gives {1, 2, 3, 4}.
        float[] a = {1, 3, 2, 4};
        float[] id = {1, 0, 0, 1};
        float[] c = new float[4];
        columnMajorSgemm(cublasOperation.CUBLAS_OP_N, cublasOperation.CUBLAS_OP_N, 2, 2, 2, 1f, a, 2, id, 2, 0f, c, 2);
        assertArrayEquals(a, c);
        columnMajorSgemm(cublasOperation.CUBLAS_OP_T, cublasOperation.CUBLAS_OP_N, 2, 2, 2, 1f, a, 2, id, 2, 0f, c, 2);
        assertArrayEquals(new float[] {1, 2, 3, 4}, c);
    }
}
