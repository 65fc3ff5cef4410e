/*
 * The kernels of device-cuda's primitives: those the driver's memset/memcpy do not cover, and sgemm and
 * axpy for machines where cuBLAS cannot be loaded. CudaKernels loads primitives.ptx, built from this file
 * by scripts/cuda-ptx; where the driver refuses that PTX, it compiles this file with NVRTC instead.
 * Edit this file, then run scripts/cuda-ptx (it needs nvcc): a test compares the PTX's recorded hash
 * with this file's.
 *
 * Element-wise kernels loop with a grid stride over long long indices; per-row reductions use one block
 * per row and a tree in dynamic shared memory (blockDim.x floats, a power of two).
 */
#define GRID_STRIDE(i, n) \
    for (long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x; i < (n); \
         i += (long long) blockDim.x * gridDim.x)

/* The side of sgemm's square tile: blocks of SGEMM_TILE * SGEMM_TILE threads (CudaKernels.SGEMM_TILE). */
#define SGEMM_TILE 16

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

__global__ void axpy_f32(long long n, float alpha, const float* x, float* y) {
    GRID_STRIDE(i, n) y[i] += alpha * x[i];
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

/*
 * Row-major C (m x n) = alpha * op(A) * op(B) + beta * C, op(A) m x k and op(B) k x n; A is stored k x m
 * when transA, B n x k when transB. One SGEMM_TILE-square tile of C per block, the blocks numbered
 * row-major over the tiles (a 1-D grid); A and B pass through shared memory one tile-wide slab of k at
 * a time. With beta = 0, C is written without being read (as cuBLAS does), so it may hold anything.
 */
__global__ void sgemm_f32(int m, int n, int k, int transA, int transB, float alpha, const float* a,
                          const float* b, float beta, float* c) {
    __shared__ float as[SGEMM_TILE][SGEMM_TILE + 1];
    __shared__ float bs[SGEMM_TILE][SGEMM_TILE + 1];
    const int tilesN = (n + SGEMM_TILE - 1) / SGEMM_TILE;
    const int tx = threadIdx.x % SGEMM_TILE;
    const int ty = threadIdx.x / SGEMM_TILE;
    const int row = (blockIdx.x / tilesN) * SGEMM_TILE + ty;
    const int col = (blockIdx.x % tilesN) * SGEMM_TILE + tx;
    float acc = 0.0f;
    for (int p0 = 0; p0 < k; p0 += SGEMM_TILE) {
        const int pa = p0 + tx; /* the column of op(A) this thread loads */
        const int pb = p0 + ty; /* the row of op(B) this thread loads */
        as[ty][tx] = row < m && pa < k ? (transA ? a[(long long) pa * m + row] : a[(long long) row * k + pa]) : 0.0f;
        bs[ty][tx] = pb < k && col < n ? (transB ? b[(long long) col * k + pb] : b[(long long) pb * n + col]) : 0.0f;
        __syncthreads();
        for (int q = 0; q < SGEMM_TILE; q++) acc += as[ty][q] * bs[q][tx];
        __syncthreads();
    }
    if (row < m && col < n) {
        float* out = c + (long long) row * n + col;
        *out = beta == 0.0f ? alpha * acc : alpha * acc + beta * *out;
    }
}

}
