package org.depengine.api.device;

import java.nio.ByteBuffer;
import org.depengine.api.Context;

/**
 * One device: it makes streams and events and allocates memory. Engines open devices through
 * {@link DeviceProvider#device(int)} and never close them; a provider closes its devices when it is
 * itself shut down (or at JVM exit). Thread-safe.
 */
public interface Device {
    /** This device's context, e.g. {@code opencl:0}. */
    Context context();

    /** A human-readable description ("Portable Computing Language: cpu-haswell-..."). */
    String description();

    /**
     * A new stream of the given kind. Engines create one per worker that drives the device, and the
     * stream belongs to that worker from then on.
     */
    Stream createStream(StreamKind kind);

    /** The policy deciding when an op on a stream of this kind is launched and done. */
    StreamPolicy policy(StreamKind kind);

    /**
     * Whether a stream of this device can wait for an event of another stream of this device on the
     * device, without blocking the host (CUDA, OpenCL: yes; a synchronous CPU lane: not needed).
     */
    boolean supportsStreamWait();

    /**
     * Allocates {@code bytes} of device memory.
     *
     * @throws UnsupportedOperationException if the device has no memory of its own
     */
    default DeviceBuffer allocate(long bytes) {
        throw new UnsupportedOperationException(context() + " does not allocate device memory");
    }

    /**
     * A host buffer suited to asynchronous copies to and from this device (direct, and pinned where the
     * device needs it). The default is a native-order direct buffer.
     */
    default ByteBuffer allocateHost(int bytes) {
        return ByteBuffer.allocateDirect(bytes).order(java.nio.ByteOrder.nativeOrder());
    }
}
