/**
 * The {@code "cuda"} device type of depengine, on JCuda: NVIDIA GPUs through the CUDA driver API.
 * Streams are non-blocking {@code CUstream}s, events come from a per-device pool, device-side waits
 * are {@code cuStreamWaitEvent}, and each stream can hand out its own cuBLAS handle.
 *
 * <p>{@code jcuda} and {@code jcublas} are automatic modules (the JCuda jars have no descriptor).
 * Their native libraries live in separate jars ({@code jcuda-natives}, {@code jcublas-natives}); JCuda's
 * own loader cannot see them from inside module {@code jcuda}, so this module extracts them itself
 * before JCuda loads (see {@code JCudaNatives}). The primitives' kernels ship as PTX, which the driver
 * compiles; only a driver older than the nvcc that built it needs NVRTC ({@code libnvrtc.so.12} of the
 * CUDA 12 toolkit), to compile their source instead. Without cuBLAS's libraries, sgemm and axpy run on
 * those kernels too.
 */
module org.depengine.device.cuda {
    requires transitive org.depengine.api;
    requires transitive jcuda;
    requires transitive jcublas;
    requires transitive org.depengine.device.common;
    requires org.slf4j;

    exports org.depengine.device.cuda;

    provides org.depengine.api.device.DeviceProvider with org.depengine.device.cuda.CudaDeviceProvider;
}
