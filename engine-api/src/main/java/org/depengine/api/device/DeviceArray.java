package org.depengine.api.device;

import java.util.Objects;
import org.depengine.api.Context;
import org.depengine.api.VarHandle;

/**
 * An array of {@code float}s on a device together with the variable that guards it: {@code length}
 * floats of {@code buffer} starting {@code offset} floats in. It is the unit APIs built on the engine
 * (a KVStore, for one) exchange when they push ops that read or write device data.
 *
 * <p>The contract: every read of these floats happens in an op that lists {@link #var()} among the
 * variables it reads (or writes), and every write in an op that lists it among the variables it
 * writes. Several arrays may share a variable (for example two parts of one buffer, or a layer's
 * weights and bias guarded together); the engine then orders their ops as one.
 *
 * <p>An immutable value; it owns nothing (closing the buffer or deleting the variable is the
 * creator's business). Thread-safe.
 *
 * @param buffer the device memory
 * @param var the variable every op touching these floats lists
 * @param offset where the array starts in {@code buffer}, in floats, ≥ 0
 * @param length the number of floats, ≥ 0; {@code offset + length} floats fit in {@code buffer}
 */
public record DeviceArray(DeviceBuffer buffer, VarHandle var, long offset, long length) {

    /**
     * Validates the components.
     *
     * @param buffer the device memory
     * @param var the variable every op touching these floats lists
     * @param offset where the array starts in {@code buffer}, in floats, ≥ 0
     * @param length the number of floats, ≥ 0; {@code offset + length} floats fit in {@code buffer}
     * @throws NullPointerException if {@code buffer} or {@code var} is null
     * @throws IllegalArgumentException if {@code offset} or {@code length} is negative, or the range
     *     does not fit in the buffer (the message gives the sizes)
     */
    public DeviceArray {
        Objects.requireNonNull(buffer, "buffer");
        Objects.requireNonNull(var, "var");
        if (offset < 0 || length < 0) {
            throw new IllegalArgumentException("device array of " + var.name() + ": offset (" + offset
                    + ") and length (" + length + ") must be >= 0 (both count floats)");
        }
        long capacity = buffer.size() / Float.BYTES;
        if (offset > capacity || length > capacity - offset) {
            throw new IllegalArgumentException("device array of " + var.name() + ": floats " + offset + ".."
                    + (offset + length) + " do not fit in a buffer of " + buffer.size() + " bytes (" + capacity
                    + " floats) on " + buffer.device().context());
        }
    }

    /**
     * The whole buffer as an array: {@code buffer.size() / 4} floats from offset 0.
     *
     * @param buffer the device memory holding the floats
     * @param var the variable guarding the array
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the buffer's size is not a multiple of 4 bytes
     */
    public DeviceArray(DeviceBuffer buffer, VarHandle var) {
        this(buffer, var, 0, wholeLength(buffer, var));
    }

    private static long wholeLength(DeviceBuffer buffer, VarHandle var) {
        Objects.requireNonNull(buffer, "buffer");
        Objects.requireNonNull(var, "var");
        if (buffer.size() % Float.BYTES != 0) {
            throw new IllegalArgumentException("device array of " + var.name() + ": a buffer of " + buffer.size()
                    + " bytes does not hold whole floats; give an offset and length in floats instead");
        }
        return buffer.size() / Float.BYTES;
    }

    /**
     * The device holding the array.
     *
     * @return the device holding the array
     */
    public Device device() {
        return buffer.device();
    }

    /**
     * The device context holding the array: where ops that touch it run.
     *
     * @return the device context holding the array: where ops that touch it run
     */
    public Context context() {
        return buffer.device().context();
    }

    /**
     * {@link #offset()} in bytes.
     *
     * @return {@link #offset()} in bytes
     */
    public long offsetBytes() {
        return offset * Float.BYTES;
    }

    /**
     * {@link #length()} in bytes.
     *
     * @return {@link #length()} in bytes
     */
    public long byteLength() {
        return length * Float.BYTES;
    }

    /** For messages: {@code "var[offset+length] on ctx"}. */
    @Override
    public String toString() {
        return var.name() + "[" + offset + "+" + length + "] on " + context();
    }
}
