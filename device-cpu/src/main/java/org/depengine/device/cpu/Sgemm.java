package org.depengine.device.cpu;

/**
 * Row-major single-precision matrix multiply over arrays, {@code C = alpha·op(A)·op(B) + beta·C}.
 *
 * <p>The loop order is i-p-j: each step adds a multiple of a row of {@code op(B)} to a row of
 * {@code C}, so the innermost loop runs along memory in both and the JIT vectorises it. Four rows of
 * {@code op(B)} are added per pass, which cuts the loads and stores of {@code C} by four. The {@code j}
 * and {@code p} ranges are blocked so that the slab of {@code op(B)} in use stays in cache while every
 * row of {@code C} passes over it. A transposed {@code B} is first copied into row-major
 * {@code op(B)} (O(k·n) against the O(m·n·k) product); a transposed {@code A} is read in place, one
 * value per row step.
 */
final class Sgemm {
    /** Columns of C per block: a C row segment of 2 KiB stays in L1. */
    static final int NC = 512;
    /** Rows of op(B) per block: a 256 × 512 slab (512 KiB) stays in L2. */
    static final int KC = 256;

    private Sgemm() {
    }

    static void sgemm(boolean transA, boolean transB, int m, int n, int k, float alpha, float[] a, float[] b,
            float beta, float[] c) {
        if (m == 0 || n == 0) {
            return;
        }
        scale(c, m * n, beta);
        if (k == 0 || alpha == 0f) {
            return;
        }
        float[] opB = transB ? transpose(b, n, k) : b;
        for (int jj = 0; jj < n; jj += NC) {
            int jEnd = Math.min(n, jj + NC);
            for (int pp = 0; pp < k; pp += KC) {
                int pEnd = Math.min(k, pp + KC);
                for (int i = 0; i < m; i++) {
                    rowUpdate(transA, m, n, k, alpha, a, opB, c, i, jj, jEnd, pp, pEnd);
                }
            }
        }
    }

    /** C[i][jj..jEnd) += alpha · Σ_{p in pp..pEnd} op(A)[i][p] · op(B)[p][jj..jEnd). */
    private static void rowUpdate(boolean transA, int m, int n, int k, float alpha, float[] a, float[] opB, float[] c,
            int i, int jj, int jEnd, int pp, int pEnd) {
        int ci = i * n;
        int p = pp;
        for (; p + 3 < pEnd; p += 4) {
            float a0 = alpha * opA(transA, a, m, k, i, p);
            float a1 = alpha * opA(transA, a, m, k, i, p + 1);
            float a2 = alpha * opA(transA, a, m, k, i, p + 2);
            float a3 = alpha * opA(transA, a, m, k, i, p + 3);
            int b0 = p * n;
            int b1 = b0 + n;
            int b2 = b1 + n;
            int b3 = b2 + n;
            for (int j = jj; j < jEnd; j++) {
                c[ci + j] += a0 * opB[b0 + j] + a1 * opB[b1 + j] + a2 * opB[b2 + j] + a3 * opB[b3 + j];
            }
        }
        for (; p < pEnd; p++) {
            float a0 = alpha * opA(transA, a, m, k, i, p);
            int b0 = p * n;
            for (int j = jj; j < jEnd; j++) {
                c[ci + j] += a0 * opB[b0 + j];
            }
        }
    }

    private static float opA(boolean transA, float[] a, int m, int k, int i, int p) {
        return transA ? a[p * m + i] : a[i * k + p];
    }

    /** c[0..len) *= beta, with beta 0 overwriting (so NaN in C does not spread), as BLAS does. */
    private static void scale(float[] c, int len, float beta) {
        if (beta == 0f) {
            java.util.Arrays.fill(c, 0, len, 0f);
        } else if (beta != 1f) {
            for (int i = 0; i < len; i++) {
                c[i] *= beta;
            }
        }
    }

    /** The transpose of a row-major rows × cols matrix, in 32 × 32 tiles for cache use. */
    static float[] transpose(float[] x, int rows, int cols) {
        float[] t = new float[rows * cols];
        final int tile = 32;
        for (int ii = 0; ii < rows; ii += tile) {
            int iEnd = Math.min(rows, ii + tile);
            for (int jj = 0; jj < cols; jj += tile) {
                int jEnd = Math.min(cols, jj + tile);
                for (int i = ii; i < iEnd; i++) {
                    for (int j = jj; j < jEnd; j++) {
                        t[j * rows + i] = x[i * cols + j];
                    }
                }
            }
        }
        return t;
    }
}
