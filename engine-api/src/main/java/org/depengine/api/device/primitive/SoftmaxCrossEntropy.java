package org.depengine.api.device.primitive;

import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Stream;

/** Softmax followed by cross-entropy against integer class labels, per row, with its gradient. */
public interface SoftmaxCrossEntropy extends Primitive {
    /**
     * Enqueues, for each row {@code i} of the row-major {@code rows × cols} matrix {@code logits}, with
     * {@code p = softmax(logits[i])} computed stably (the row maximum subtracted first):
     * <ul>
     *   <li>{@code loss[i] = −log p[labels[i]]};</li>
     *   <li>if {@code dlogits} is not null, {@code dlogits[i][j] = (p[j] − (j == labels[i] ? 1 : 0)) ·
     *       gradScale} (pass {@code 1 / rows} for the gradient of the mean loss).</li>
     * </ul>
     * {@code labels} holds {@code rows} int32 values. A label outside {@code 0 .. cols−1} cannot be
     * reported from the device, so it gives that row a NaN loss and a NaN gradient row on every device.
     * {@code dlogits} may be the same buffer as {@code logits}; {@code loss} must not overlap
     * {@code logits} or {@code dlogits}. {@code cols} must be at least 1 when {@code rows} is not 0.
     *
     * @param stream the stream to enqueue on, of this device
     * @param rows the number of rows
     * @param cols the number of columns
     * @param logits the row-major {@code rows × cols} scores
     * @param labels the class of each row, as floats
     * @param loss receives the loss of each row
     * @param dlogits where the gradient goes, or null to compute the loss only
     * @param gradScale the factor applied to the gradient (e.g. 1 / batch size)
     * @throws IllegalArgumentException if a size is negative, {@code cols} is 0 with rows to do, a buffer
     *     is too small, or a buffer or the stream belongs to another device
     */
    default void lossAndGradient(Stream stream, int rows, int cols, DeviceBuffer logits, DeviceBuffer labels,
            DeviceBuffer loss, DeviceBuffer dlogits, float gradScale) {
        PrimitiveChecks.stream(device(), stream);
        long size = PrimitiveChecks.matrix("logits", rows, cols);
        if (rows > 0 && cols == 0) {
            throw new IllegalArgumentException("cols must be >= 1 (a softmax over no classes), got 0 with " + rows
                    + " rows");
        }
        PrimitiveChecks.floats(device(), logits, "logits", size);
        PrimitiveChecks.floats(device(), labels, "labels", rows);
        PrimitiveChecks.floats(device(), loss, "loss", rows);
        if (dlogits != null) {
            PrimitiveChecks.floats(device(), dlogits, "dlogits", size);
        }
        if (loss == logits || loss == dlogits) {
            throw new IllegalArgumentException("'loss' must not be the 'logits' or 'dlogits' buffer");
        }
        if (rows > 0) {
            enqueueLossAndGradient(stream, rows, cols, logits, labels, loss, dlogits, gradScale);
        }
    }

    /**
     * {@link #lossAndGradient} after its checks, with {@code rows > 0} and {@code cols > 0}.
     *
     * @param stream the stream to enqueue on, of this device
     * @param rows the number of rows
     * @param cols the number of columns
     * @param logits the row-major {@code rows × cols} scores
     * @param labels the class of each row, as floats
     * @param loss receives the loss of each row
     * @param dlogits receives the gradient of the scores
     * @param gradScale the factor applied to the gradient (e.g. 1 / batch size)
     */
    void enqueueLossAndGradient(Stream stream, int rows, int cols, DeviceBuffer logits, DeviceBuffer labels,
            DeviceBuffer loss, DeviceBuffer dlogits, float gradScale);
}
