package org.depengine.api.device.primitive;

import java.nio.ByteBuffer;
import java.util.Objects;
import org.depengine.api.device.Device;
import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Stream;

/**
 * The argument checks of the primitives. The primitive interfaces call them in their default methods,
 * before they hand the call to the device's {@code enqueue...} method, so every device rejects bad input
 * with the same clear messages before anything is enqueued, and no device restates a check. A device
 * with a primitive of its own (outside this package) may use them the same way. Stateless and
 * thread-safe.
 */
public final class PrimitiveChecks {
    private PrimitiveChecks() {
    }

    /**
     * Checks that the stream belongs to {@code device}.
     *
     * @param device the device the primitive runs on
     * @param stream the stream of the call
     * @throws NullPointerException if {@code stream} is null
     * @throws IllegalArgumentException if it belongs to another device
     */
    public static void stream(Device device, Stream stream) {
        Objects.requireNonNull(stream, "stream");
        if (stream.device() != device) {
            reopened(device, stream.device(), "stream " + stream);
            throw new IllegalArgumentException("a primitive of " + device.context() + " was given a stream of "
                    + stream.device().context() + " (" + stream + "): use a stream of the device the primitive came "
                    + "from (Device.createStream, or RunContext.stream() inside an op)");
        }
    }

    /**
     * Checks that the buffer belongs to {@code device}.
     *
     * @param device the device the primitive runs on
     * @param buffer the buffer
     * @param name the argument's name, for the message
     * @throws NullPointerException if {@code buffer} is null
     * @throws IllegalArgumentException if it belongs to another device
     */
    public static void buffer(Device device, DeviceBuffer buffer, String name) {
        Objects.requireNonNull(buffer, name);
        if (buffer.device() != device) {
            reopened(device, buffer.device(), "buffer '" + name + "'");
            throw new IllegalArgumentException("buffer '" + name + "' belongs to " + buffer.device().context()
                    + " but the primitive runs on " + device.context()
                    + ": allocate it on that device, or copy it there through the host");
        }
    }

    /** Another instance of the same context: the object outlived a close of its device. */
    private static void reopened(Device device, Device owner, String what) {
        if (owner.context().equals(device.context())) {
            throw new IllegalArgumentException(what + " belongs to an earlier opening of " + device.context()
                    + ", closed since (the last engine using '" + device.context().deviceType() + "' closed, or "
                    + "its provider was closed), which freed it: make it again on the open device, and keep an "
                    + "engine open, or the device acquired with Devices.acquire, while it is in use (or set "
                    + "-Ddepengine.device.keepOpen=true)");
        }
    }

    /**
     * Checks that {@code buffer} belongs to {@code device} and holds {@code count} floats from float 0.
     *
     * @param device the device the primitive runs on
     * @param buffer the buffer
     * @param name the argument's name, for the message
     * @param count how many floats (or bytes) it must hold
     * @throws NullPointerException if {@code buffer} is null
     * @throws IllegalArgumentException if it belongs to another device, {@code count} is negative or
     *     the buffer is too small
     */
    public static void floats(Device device, DeviceBuffer buffer, String name, long count) {
        buffer(device, buffer, name);
        elements(buffer, name, 0, count);
    }

    /**
     * Checks that {@code count} 4-byte elements from element {@code offset} fit in {@code buffer}.
     *
     * @param buffer the buffer
     * @param name the argument's name, for the message
     * @param offset where the range starts
     * @param count how many floats (or bytes) it must hold
     * @throws IllegalArgumentException if {@code offset} or {@code count} is negative or the range does
     *     not fit
     */
    public static void elements(DeviceBuffer buffer, String name, long offset, long count) {
        nonNegative(name + " offset", offset);
        nonNegative(name + " element count", count);
        long capacity = buffer.size() / Float.BYTES;
        if (count > capacity - offset) {
            throw new IllegalArgumentException("buffer '" + name + "' holds " + capacity + " elements of 4 bytes ("
                    + buffer.size() + " bytes) but the call uses " + count + " from element " + offset);
        }
    }

    /**
     * Checks that {@code count} bytes from byte {@code offset} fit in {@code buffer}.
     *
     * @param buffer the buffer
     * @param name the argument's name, for the message
     * @param offset where the range starts
     * @param count how many floats (or bytes) it must hold
     * @throws IllegalArgumentException if {@code offset} or {@code count} is negative or the range does
     *     not fit
     */
    public static void bytes(DeviceBuffer buffer, String name, long offset, long count) {
        nonNegative(name + " offset", offset);
        nonNegative(name + " byte count", count);
        if (count > buffer.size() - offset) {
            throw new IllegalArgumentException("buffer '" + name + "' holds " + buffer.size()
                    + " bytes but the copy uses " + count + " from byte " + offset);
        }
    }

    /**
     * Checks that a host buffer can take part in an asynchronous copy.
     *
     * @param host the host buffer
     * @param name the argument's name, for the message
     * @throws NullPointerException if {@code host} is null
     * @throws IllegalArgumentException if it is not direct
     */
    public static void host(ByteBuffer host, String name) {
        Objects.requireNonNull(host, name);
        if (!host.isDirect()) {
            throw new IllegalArgumentException("host buffer '" + name + "' must be direct (Device.allocateHost or "
                    + "ByteBuffer.allocateDirect): an asynchronous copy cannot use a heap buffer");
        }
    }

    /**
     * Checks that a count or offset is not negative.
     *
     * @param name the argument's name, for the message
     * @param value the value
     * @throws IllegalArgumentException if {@code value} is negative
     */
    public static void nonNegative(String name, long value) {
        if (value < 0) {
            throw new IllegalArgumentException(name + " must be >= 0, got " + value);
        }
    }

    /**
     * Checks that two buffers are not the same one (an aliasing primitive would read what it overwrites).
     *
     * @param a one buffer
     * @param nameA its name, for the message
     * @param b the other buffer
     * @param nameB its name, for the message
     * @throws IllegalArgumentException if {@code a} and {@code b} are the same buffer
     */
    public static void distinct(DeviceBuffer a, String nameA, DeviceBuffer b, String nameB) {
        if (a == b) {
            throw new IllegalArgumentException("'" + nameA + "' and '" + nameB + "' must be different buffers");
        }
    }

    /**
     * The number of elements of a {@code rows × cols} matrix.
     *
     * @param name the argument's name, for the message
     * @param rows the number of rows
     * @param cols the number of columns
     * @return {@code rows · cols}
     * @throws IllegalArgumentException if a dimension is negative
     */
    public static long matrix(String name, long rows, long cols) {
        nonNegative(name + " rows", rows);
        nonNegative(name + " cols", cols);
        return rows * cols;
    }

    /**
     * Checks that two byte ranges do not overlap, if they are in the same buffer.
     *
     * @param src the source buffer
     * @param srcOffset where the source range starts, in bytes
     * @param dst the destination buffer
     * @param dstOffset where the destination range starts, in bytes
     * @param bytes the length of both ranges, in bytes
     * @throws IllegalArgumentException if they overlap
     */
    public static void disjoint(DeviceBuffer src, long srcOffset, DeviceBuffer dst, long dstOffset, long bytes) {
        if (src == dst && bytes > 0 && srcOffset < dstOffset + bytes && dstOffset < srcOffset + bytes) {
            throw new IllegalArgumentException("source bytes " + srcOffset + ".." + (srcOffset + bytes)
                    + " and destination bytes " + dstOffset + ".." + (dstOffset + bytes)
                    + " overlap in one buffer: copy through a second buffer");
        }
    }
}
