package org.depengine.api.device;

import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.Optional;
import org.depengine.api.Context;
import org.depengine.api.device.primitive.Primitive;

/**
 * One device: it makes streams and events and allocates memory. Engines get devices through
 * {@link Devices#acquire} and never close them: the provider that opened a device owns it and closes it
 * ({@link DeviceProvider#close()}) when the last engine using its type has closed (see {@link Devices}
 * for who owns what). Thread-safe.
 *
 * <p><b>A plugin that breaks this contract</b> (a {@link Device}, {@link Stream} or {@link StreamPolicy}
 * method that throws, {@link #createStream} or {@link #policy} returning null, a done callback called
 * twice) cannot hang an engine: the op involved fails with an {@link org.depengine.api.EngineException}
 * naming the device type and the offence, its dependants are skipped as for any failure, and the
 * engine's workers and other devices keep working. A second done report is ignored, with one WARN
 * naming the plugin.
 */
public interface Device {
    /**
     * This device's context, e.g. {@code opencl:0}.
     *
     * @return this device's context, e.g. {@code opencl:0}
     */
    Context context();

    /**
     * A human-readable description ("Portable Computing Language: cpu-haswell-...").
     *
     * @return a human-readable description ("Portable Computing Language: cpu-haswell-...")
     */
    String description();

    /**
     * A new stream of the given kind. Engines create one per worker that drives the device, and the
     * stream belongs to that worker from then on.
     *
     * @param kind the stream kind
     * @return the new stream
     */
    Stream createStream(StreamKind kind);

    /**
     * The policy deciding when an op on a stream of this kind is launched and done.
     *
     * @param kind the stream kind
     * @return the policy deciding when an op on a stream of this kind is launched and done
     */
    StreamPolicy policy(StreamKind kind);

    /**
     * Whether a stream of this device can wait for an event of another stream of this device on the
     * device, without blocking the host (CUDA, OpenCL: yes; a synchronous CPU lane: not needed).
     *
     * @return whether streams wait for one another on the device
     */
    boolean supportsStreamWait();

    /**
     * Frees what the device holds (contexts, threads, pools). Called only by the provider that opened the
     * device, from {@link DeviceProvider#close()}, once nothing uses it. Its streams and buffers are freed
     * with it; a later use of one should be an {@link IllegalStateException} naming the device (never a
     * use of freed native memory), and work already enqueued finishes, with its completion callbacks,
     * before anything is freed. The default does nothing.
     */
    default void close() {
    }

    /**
     * Allocates {@code bytes} of device memory.
     *
     * @param bytes the size in bytes
     * @return the new buffer
     * @throws UnsupportedOperationException if the device has no memory of its own
     */
    default DeviceBuffer allocate(long bytes) {
        throw new UnsupportedOperationException(context() + " does not allocate device memory");
    }

    /**
     * A host buffer suited to asynchronous copies to and from this device (direct, and pinned where the
     * device needs it). The default is a native-order direct buffer.
     *
     * <p>There is no {@code freeHost(ByteBuffer)}, on purpose: a device that pins the memory frees it
     * when the buffer, and every view of it, has become unreachable (a {@link java.lang.ref.Cleaner}).
     * An explicit free could not know whether a slice or duplicate of the buffer is still in use, or an
     * enqueued copy still reads it, and freeing it then would let Java code touch unmapped native memory
     * and crash the JVM. Code that allocates much pinned memory reuses its buffers instead.
     *
     * @param bytes the size in bytes
     * @return the new host buffer
     */
    default ByteBuffer allocateHost(int bytes) {
        return ByteBuffer.allocateDirect(bytes).order(java.nio.ByteOrder.nativeOrder());
    }

    /**
     * The primitive of the given interface that this device offers ({@link org.depengine.api.device.primitive.Matmul},
     * {@link org.depengine.api.device.primitive.Memcpy}, ...), or empty if it has none: a device offers
     * the ones it has. The default offers none. The same instance may be returned on every call;
     * primitives are stateless and thread-safe.
     *
     * @param <P> the primitive interface
     * @param type the primitive interface, e.g. {@code Matmul.class}
     * @return the primitive, or empty if the device does not offer it
     * @throws NullPointerException if {@code type} is null
     */
    default <P extends Primitive> Optional<P> primitive(Class<P> type) {
        Objects.requireNonNull(type, "type");
        return Optional.empty();
    }

    /**
     * As {@link #primitive(Class)}, for code that cannot go on without the primitive.
     *
     * @param <P> the primitive interface
     * @param type the primitive interface, e.g. {@code Matmul.class}
     * @return the primitive
     * @throws UnsupportedOperationException if this device does not offer it (the message names the device
     *     and the primitive)
     */
    default <P extends Primitive> P requirePrimitive(Class<P> type) {
        return primitive(type).orElseThrow(() -> new UnsupportedOperationException("device " + context() + " ("
                + description() + ") offers no " + type.getSimpleName() + " primitive: run this on a device that "
                + "does (cpu, opencl and cuda devices offer every primitive of org.depengine.api.device.primitive), "
                + "or check Device.primitive(" + type.getSimpleName() + ".class) first"));
    }
}
