package org.depengine.api.device.primitive;

import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Stream;

/**
 * Activation functions and their gradients, element-wise on the first {@code n} floats. An output may
 * be the same buffer as an input. Every method throws {@link IllegalArgumentException} if {@code n} is
 * negative, a buffer holds fewer than {@code n} floats, or a buffer or the stream belongs to another
 * device.
 */
public interface Activation extends Primitive {
    /** Enqueues {@code y[i] = max(x[i], 0)}. */
    void relu(Stream stream, long n, DeviceBuffer x, DeviceBuffer y);

    /**
     * Enqueues the ReLU gradient: {@code dx[i] = dy[i]} where {@code y[i] > 0}, else 0, with {@code y}
     * the output of {@link #relu}.
     */
    void reluGrad(Stream stream, long n, DeviceBuffer y, DeviceBuffer dy, DeviceBuffer dx);
}
