package org.depengine.device.cuda;

import java.util.List;

/**
 * The CUDA C++ source of the primitives' kernels (those cuBLAS and the driver's memset/memcpy do not
 * cover), compiled with NVRTC once per device by {@link CudaKernels}. Element-wise kernels loop with a
 * grid stride over {@code long long} indices; per-row reductions use one block per row and a tree in
 * dynamic shared memory ({@code blockDim.x} floats, a power of two).
 */
final class PrimitiveKernels {
    static final String PROGRAM_NAME = "depengine_primitives.cu";

    /** The kernels the source defines (looked up once the module is loaded). */
    static final List<String> NAMES = List.of("add_f32", "mul_f32", "scale_f32", "add_row_vector_f32", "relu_f32",
            "relu_grad_f32", "row_sums_f32", "column_sums_f32", "softmax_xent_f32");

    static final String SOURCE = """
            #define GRID_STRIDE(i, n) \\
                for (long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x; i < (n); \\
                     i += (long long) blockDim.x * gridDim.x)

            extern "C" {

            __global__ void add_f32(long long n, const float* x, const float* y, float* o) {
                GRID_STRIDE(i, n) o[i] = x[i] + y[i];
            }

            __global__ void mul_f32(long long n, const float* x, const float* y, float* o) {
                GRID_STRIDE(i, n) o[i] = x[i] * y[i];
            }

            __global__ void scale_f32(long long n, float alpha, const float* x, float* o) {
                GRID_STRIDE(i, n) o[i] = alpha * x[i];
            }

            __global__ void add_row_vector_f32(long long n, int cols, float* x, const float* b) {
                GRID_STRIDE(i, n) x[i] += b[i % cols];
            }

            __global__ void relu_f32(long long n, const float* x, float* y) {
                GRID_STRIDE(i, n) { float v = x[i]; y[i] = v > 0.0f ? v : 0.0f; }
            }

            __global__ void relu_grad_f32(long long n, const float* y, const float* dy, float* dx) {
                GRID_STRIDE(i, n) dx[i] = y[i] > 0.0f ? dy[i] : 0.0f;
            }

            __device__ float block_sum(float* s, float v) {
                const int t = threadIdx.x;
                s[t] = v;
                __syncthreads();
                for (int h = blockDim.x / 2; h > 0; h >>= 1) {
                    if (t < h) s[t] += s[t + h];
                    __syncthreads();
                }
                const float r = s[0];
                __syncthreads();
                return r;
            }

            __device__ float block_max(float* s, float v) {
                const int t = threadIdx.x;
                s[t] = v;
                __syncthreads();
                for (int h = blockDim.x / 2; h > 0; h >>= 1) {
                    if (t < h) s[t] = fmaxf(s[t], s[t + h]);
                    __syncthreads();
                }
                const float r = s[0];
                __syncthreads();
                return r;
            }

            /* One block per row. */
            __global__ void row_sums_f32(int cols, const float* x, float* out) {
                extern __shared__ float s[];
                const float* xr = x + (long long) blockIdx.x * cols;
                float acc = 0.0f;
                for (int j = threadIdx.x; j < cols; j += blockDim.x) acc += xr[j];
                acc = block_sum(s, acc);
                if (threadIdx.x == 0) out[blockIdx.x] = acc;
            }

            /* One thread per column, walking down the rows (neighbouring threads read neighbouring floats). */
            __global__ void column_sums_f32(int rows, int cols, const float* x, float* out) {
                GRID_STRIDE(j, cols) {
                    float acc = 0.0f;
                    for (int i = 0; i < rows; i++) acc += x[(long long) i * cols + j];
                    out[j] = acc;
                }
            }

            /* One block per row: max, sum of exponentials, loss, then the gradient. d may be x. */
            __global__ void softmax_xent_f32(int cols, const float* x, const int* labels, float* loss, float* d,
                                             int hasGrad, float scale) {
                extern __shared__ float s[];
                const int row = blockIdx.x;
                const float* xr = x + (long long) row * cols;
                float mx = __int_as_float(0xff800000); /* -infinity */
                for (int j = threadIdx.x; j < cols; j += blockDim.x) mx = fmaxf(mx, xr[j]);
                mx = block_max(s, mx);
                float sum = 0.0f;
                for (int j = threadIdx.x; j < cols; j += blockDim.x) sum += expf(xr[j] - mx);
                sum = block_sum(s, sum);
                const float logSum = logf(sum);
                const int label = labels[row];
                const bool bad = label < 0 || label >= cols;
                const float picked = bad ? 0.0f : xr[label];
                const float nan = __int_as_float(0x7fc00000);
                /* Every thread has read the row before any thread overwrites it (d may be x). */
                __syncthreads();
                if (threadIdx.x == 0) loss[row] = bad ? nan : logSum - (picked - mx);
                if (hasGrad) {
                    float* dr = d + (long long) row * cols;
                    for (int j = threadIdx.x; j < cols; j += blockDim.x) {
                        const float p = expf(xr[j] - mx - logSum);
                        dr[j] = bad ? nan : (j == label ? p - 1.0f : p) * scale;
                    }
                }
            }

            }
            """;

    private PrimitiveKernels() {
    }
}
