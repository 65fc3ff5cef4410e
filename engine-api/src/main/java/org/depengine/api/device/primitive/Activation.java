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
    /**
     * Enqueues {@code y[i] = max(x[i], 0)}.
     *
     * @param stream the stream to enqueue on, of this device
     * @param n the number of floats
     * @param x the input floats
     * @param y the output floats
     */
    default void relu(Stream stream, long n, DeviceBuffer x, DeviceBuffer y) {
        PrimitiveChecks.stream(device(), stream);
        PrimitiveChecks.nonNegative("n", n);
        PrimitiveChecks.floats(device(), x, "x", n);
        PrimitiveChecks.floats(device(), y, "y", n);
        if (n > 0) {
            enqueueRelu(stream, n, x, y);
        }
    }

    /**
     * Enqueues the ReLU gradient: {@code dx[i] = dy[i]} where {@code y[i] > 0}, else 0, with {@code y}
     * the output of {@link #relu}.
     *
     * @param stream the stream to enqueue on, of this device
     * @param n the number of floats
     * @param y the forward pass's output
     * @param dy the gradient of the output
     * @param dx receives the gradient of the input
     */
    default void reluGrad(Stream stream, long n, DeviceBuffer y, DeviceBuffer dy, DeviceBuffer dx) {
        PrimitiveChecks.stream(device(), stream);
        PrimitiveChecks.nonNegative("n", n);
        PrimitiveChecks.floats(device(), y, "y", n);
        PrimitiveChecks.floats(device(), dy, "dy", n);
        PrimitiveChecks.floats(device(), dx, "dx", n);
        if (n > 0) {
            enqueueReluGrad(stream, n, y, dy, dx);
        }
    }

    /**
     * {@link #relu} after its checks, with {@code n > 0}.
     *
     * @param stream the stream to enqueue on, of this device
     * @param n the number of floats
     * @param x the input floats
     * @param y the output floats
     */
    void enqueueRelu(Stream stream, long n, DeviceBuffer x, DeviceBuffer y);

    /**
     * {@link #reluGrad} after its checks, with {@code n > 0}.
     *
     * @param stream the stream to enqueue on, of this device
     * @param n the number of floats
     * @param y the forward pass's output
     * @param dy the gradient of the output
     * @param dx receives the gradient of the input
     */
    void enqueueReluGrad(Stream stream, long n, DeviceBuffer y, DeviceBuffer dy, DeviceBuffer dx);
}
