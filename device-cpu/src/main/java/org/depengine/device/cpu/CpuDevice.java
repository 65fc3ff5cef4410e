package org.depengine.device.cpu;

import java.util.Optional;
import org.depengine.api.Context;
import org.depengine.api.device.Device;
import org.depengine.api.device.Stream;
import org.depengine.api.device.StreamKind;
import org.depengine.api.device.StreamPolicy;
import org.depengine.api.device.primitive.Primitive;
import org.depengine.api.device.primitive.PrimitiveSet;

/**
 * A logical CPU device. Its streams are synchronous lanes: an op's work is done when its function
 * returns, so events are complete when recorded and the policy is {@link StreamPolicy#SYNCHRONOUS}.
 * Its memory is host memory ({@link CpuBuffer}: a {@code float[]}), and it offers every primitive of
 * {@link org.depengine.api.device.primitive}, in plain single-threaded Java.
 */
final class CpuDevice implements Device {
    /** The largest buffer: as many bytes as the largest {@code float[]} holds. */
    static final long MAX_BUFFER_BYTES = (Integer.MAX_VALUE - 8L) * Float.BYTES;

    private final Context context;
    private final PrimitiveSet primitives;

    CpuDevice(Context context) {
        this.context = context;
        this.primitives = new PrimitiveSet(new CpuMemcpy(this), new CpuFill(this), new CpuMatmul(this),
                new CpuElementwise(this), new CpuActivation(this), new CpuSoftmaxCrossEntropy(this), new CpuReduce(this));
    }

    @Override
    public Context context() {
        return context;
    }

    @Override
    public String description() {
        return "logical CPU device " + context.deviceId() + " (" + Runtime.getRuntime().availableProcessors() + " cores)";
    }

    @Override
    public Stream createStream(StreamKind kind) {
        return new CpuStream(this, kind);
    }

    @Override
    public StreamPolicy policy(StreamKind kind) {
        return StreamPolicy.SYNCHRONOUS;
    }

    /** A CPU lane never needs a device-side wait: its work is done when the driving op returns. */
    @Override
    public boolean supportsStreamWait() {
        return false;
    }

    /**
     * A zeroed buffer of {@code bytes} bytes, backed by a {@code float[]} ({@link CpuBuffer#floats()}).
     *
     * @throws IllegalArgumentException if {@code bytes} is negative or above {@link #MAX_BUFFER_BYTES}
     */
    @Override
    public CpuBuffer allocate(long bytes) {
        if (bytes < 0 || bytes > MAX_BUFFER_BYTES) {
            throw new IllegalArgumentException("CPU buffers hold 0.." + MAX_BUFFER_BYTES + " bytes, asked for " + bytes);
        }
        return new CpuBuffer(this, bytes);
    }

    /** Every primitive of {@link org.depengine.api.device.primitive}. */
    @Override
    public <P extends Primitive> Optional<P> primitive(Class<P> type) {
        return primitives.find(type);
    }

    @Override
    public String toString() {
        return "CpuDevice[" + context + "]";
    }
}
