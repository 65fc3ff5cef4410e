package org.depengine.device.cpu;

import java.util.Optional;
import org.depengine.api.Context;
import org.depengine.api.device.SynchronousDevice;
import org.depengine.api.device.primitive.Primitive;
import org.depengine.api.device.primitive.PrimitiveSet;

/**
 * A logical CPU device: a {@link SynchronousDevice}, whose work is done when the op that enqueued it
 * returns. Its memory is host memory ({@link CpuBuffer}: a {@code float[]}), and it offers every
 * primitive of {@code org.depengine.api.device.primitive}, in plain single-threaded Java.
 */
final class CpuDevice extends SynchronousDevice {
    /** The largest buffer: as many bytes as the largest {@code float[]} holds. */
    static final long MAX_BUFFER_BYTES = (Integer.MAX_VALUE - 8L) * Float.BYTES;

    private final PrimitiveSet primitives;

    CpuDevice(Context context) {
        super(context, "logical CPU device " + context.deviceId() + " (" + Runtime.getRuntime().availableProcessors()
                + " cores)");
        this.primitives = new PrimitiveSet(new CpuMemcpy(this), new CpuMath(this), new CpuReduce(this),
                new CpuSoftmaxCrossEntropy(this));
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

    /** Every primitive of {@code org.depengine.api.device.primitive}. */
    @Override
    public <P extends Primitive> Optional<P> primitive(Class<P> type) {
        return primitives.find(type);
    }
}
