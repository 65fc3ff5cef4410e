package org.depengine.device.opencl;

/**
 * The OpenCL C source of the primitives' kernels: one program, built once per device by
 * {@link OpenClDevice#kernel(String, String)} on first use. Element indices are {@code long}, so that
 * buffers beyond 2³¹ floats work; matrix dimensions are {@code int}, as in BLAS.
 */
final class PrimitiveKernels {
    /** Tile edge of the tiled sgemm kernel: work-groups of {@code TILE × TILE} items. */
    static final int TILE = 16;

    static final String SOURCE = """
            #define TILE %d

            __kernel void fill_f32(__global float* x, long off, long n, float v) {
                long i = get_global_id(0);
                if (i < n) x[off + i] = v;
            }

            __kernel void add_f32(long n, __global const float* x, __global const float* y, __global float* o) {
                long i = get_global_id(0);
                if (i < n) o[i] = x[i] + y[i];
            }

            __kernel void mul_f32(long n, __global const float* x, __global const float* y, __global float* o) {
                long i = get_global_id(0);
                if (i < n) o[i] = x[i] * y[i];
            }

            __kernel void axpy_f32(long n, float alpha, __global const float* x, __global float* y) {
                long i = get_global_id(0);
                if (i < n) y[i] += alpha * x[i];
            }

            __kernel void scale_f32(long n, float alpha, __global const float* x, __global float* o) {
                long i = get_global_id(0);
                if (i < n) o[i] = alpha * x[i];
            }

            __kernel void add_row_vector_f32(long n, int cols, __global float* x, __global const float* b) {
                long i = get_global_id(0);
                if (i < n) x[i] += b[i %% cols];
            }

            __kernel void relu_f32(long n, __global const float* x, __global float* y) {
                long i = get_global_id(0);
                if (i < n) { float v = x[i]; y[i] = v > 0.0f ? v : 0.0f; }
            }

            __kernel void relu_grad_f32(long n, __global const float* y, __global const float* dy, __global float* dx) {
                long i = get_global_id(0);
                if (i < n) dx[i] = y[i] > 0.0f ? dy[i] : 0.0f;
            }

            /* C = alpha * op(A) * op(B) + beta * C, row-major; TILE x TILE tiles of op(A) and op(B) staged in
               local memory. Dimension 0 runs along columns of C, dimension 1 along rows. */
            __kernel void sgemm_tiled(int transA, int transB, int m, int n, int k, float alpha,
                                      __global const float* A, __global const float* B, float beta,
                                      __global float* C) {
                __local float As[TILE][TILE];
                __local float Bs[TILE][TILE];
                const int col = get_global_id(0);
                const int row = get_global_id(1);
                const int lc = get_local_id(0);
                const int lr = get_local_id(1);
                float acc = 0.0f;
                for (int t = 0; t < k; t += TILE) {
                    const int p = t + lc;
                    As[lr][lc] = (row < m && p < k)
                            ? (transA ? A[(long) p * m + row] : A[(long) row * k + p]) : 0.0f;
                    const int q = t + lr;
                    Bs[lr][lc] = (q < k && col < n)
                            ? (transB ? B[(long) col * k + q] : B[(long) q * n + col]) : 0.0f;
                    barrier(CLK_LOCAL_MEM_FENCE);
                    for (int x = 0; x < TILE; x++) acc += As[lr][x] * Bs[x][lc];
                    barrier(CLK_LOCAL_MEM_FENCE);
                }
                if (row < m && col < n) {
                    const long o = (long) row * n + col;
                    C[o] = beta == 0.0f ? alpha * acc : alpha * acc + beta * C[o];
                }
            }

            /* The same product without local memory, for devices whose work-groups are smaller than a tile. */
            __kernel void sgemm_simple(int transA, int transB, int m, int n, int k, float alpha,
                                       __global const float* A, __global const float* B, float beta,
                                       __global float* C) {
                const int col = get_global_id(0);
                const int row = get_global_id(1);
                if (row >= m || col >= n) return;
                float acc = 0.0f;
                for (int p = 0; p < k; p++) {
                    float a = transA ? A[(long) p * m + row] : A[(long) row * k + p];
                    float b = transB ? B[(long) col * k + p] : B[(long) p * n + col];
                    acc += a * b;
                }
                const long o = (long) row * n + col;
                C[o] = beta == 0.0f ? alpha * acc : alpha * acc + beta * C[o];
            }

            /* Tree reductions over a work-group; s has get_local_size(0) entries, a power of two. */
            float group_sum(__local float* s, float v) {
                const int lid = get_local_id(0);
                s[lid] = v;
                barrier(CLK_LOCAL_MEM_FENCE);
                for (int h = get_local_size(0) / 2; h > 0; h >>= 1) {
                    if (lid < h) s[lid] += s[lid + h];
                    barrier(CLK_LOCAL_MEM_FENCE);
                }
                float r = s[0];
                barrier(CLK_LOCAL_MEM_FENCE);
                return r;
            }

            float group_max(__local float* s, float v) {
                const int lid = get_local_id(0);
                s[lid] = v;
                barrier(CLK_LOCAL_MEM_FENCE);
                for (int h = get_local_size(0) / 2; h > 0; h >>= 1) {
                    if (lid < h) s[lid] = fmax(s[lid], s[lid + h]);
                    barrier(CLK_LOCAL_MEM_FENCE);
                }
                float r = s[0];
                barrier(CLK_LOCAL_MEM_FENCE);
                return r;
            }

            /* One work-group per row. */
            __kernel void row_sums_f32(int cols, __global const float* x, __global float* out, __local float* s) {
                const int row = get_group_id(0);
                __global const float* xr = x + (long) row * cols;
                float acc = 0.0f;
                for (int j = get_local_id(0); j < cols; j += get_local_size(0)) acc += xr[j];
                acc = group_sum(s, acc);
                if (get_local_id(0) == 0) out[row] = acc;
            }

            /* One work item per column, walking down the rows (neighbouring items read neighbouring floats). */
            __kernel void column_sums_f32(int rows, int cols, __global const float* x, __global float* out) {
                const int j = get_global_id(0);
                if (j >= cols) return;
                float acc = 0.0f;
                for (int i = 0; i < rows; i++) acc += x[(long) i * cols + j];
                out[j] = acc;
            }

            /* One work-group per row: max, sum of exponentials, loss, then the gradient. d may be x. */
            __kernel void softmax_xent_f32(int cols, __global const float* x, __global const int* labels,
                                           __global float* loss, __global float* d, int hasGrad, float scale,
                                           __local float* s) {
                const int row = get_group_id(0);
                const int lid = get_local_id(0);
                const int size = get_local_size(0);
                __global const float* xr = x + (long) row * cols;
                float mx = -INFINITY;
                for (int j = lid; j < cols; j += size) mx = fmax(mx, xr[j]);
                mx = group_max(s, mx);
                float sum = 0.0f;
                for (int j = lid; j < cols; j += size) sum += exp(xr[j] - mx);
                sum = group_sum(s, sum);
                const float logSum = log(sum);
                const int label = labels[row];
                const int bad = label < 0 || label >= cols;
                const float picked = bad ? 0.0f : xr[label];
                /* Every item has read the row before any item overwrites it (d may be x). */
                barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
                if (lid == 0) loss[row] = bad ? NAN : logSum - (picked - mx);
                if (hasGrad) {
                    __global float* dr = d + (long) row * cols;
                    for (int j = lid; j < cols; j += size) {
                        const float p = exp(xr[j] - mx - logSum);
                        dr[j] = bad ? NAN : (j == label ? p - 1.0f : p) * scale;
                    }
                }
            }
            """.formatted(TILE);

    private PrimitiveKernels() {
    }
}
