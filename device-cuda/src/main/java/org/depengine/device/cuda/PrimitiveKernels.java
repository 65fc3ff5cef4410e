package org.depengine.device.cuda;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The primitives' kernels, as shipped in this module's resources: their CUDA C++ source
 * ({@code primitives.cu}) and the PTX that {@code scripts/cuda-ptx} built from it with nvcc
 * ({@code primitives.ptx}, whose first line records the source's SHA-256). {@link CudaKernels} loads the
 * PTX, which needs only the driver, and compiles the source with NVRTC where the driver refuses the PTX.
 */
final class PrimitiveKernels {
    static final String PROGRAM_NAME = "primitives.cu";
    static final String PTX_NAME = "primitives.ptx";

    /** The kernels the source defines (looked up once the module is loaded). */
    static final List<String> NAMES = List.of("add_f32", "mul_f32", "scale_f32", "axpy_f32", "add_row_vector_f32",
            "relu_f32", "relu_grad_f32", "row_sums_f32", "column_sums_f32", "softmax_xent_f32", "sgemm_f32");

    /** The side of {@code sgemm_f32}'s square tile; its blocks have {@code SGEMM_TILE²} threads. */
    static final int SGEMM_TILE = 16;

    /** The prefix of the PTX's first line, which goes on with the source's SHA-256 in hex. */
    static final String PTX_SOURCE_HASH_PREFIX = "// depengine: built by scripts/cuda-ptx from primitives.cu sha256 ";

    private static final String SOURCE = read(PROGRAM_NAME);
    private static final String PTX = read(PTX_NAME);

    private PrimitiveKernels() {
    }

    /** The CUDA C++ source. */
    static String source() {
        return SOURCE;
    }

    /** The PTX built from {@link #source()}. */
    static String ptx() {
        return PTX;
    }

    private static String read(String name) {
        try (InputStream in = PrimitiveKernels.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("resource " + name + " is missing from device-cuda's jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("could not read device-cuda's resource " + name, e);
        }
    }
}
