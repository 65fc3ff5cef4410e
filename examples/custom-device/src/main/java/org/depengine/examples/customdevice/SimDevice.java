package org.depengine.examples.customdevice;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.depengine.api.Context;
import org.depengine.api.device.AsynchronousDevice;
import org.depengine.api.device.StreamKind;

/**
 * One simulated accelerator. Each {@link SimStream} it makes is a lane with a thread of its own, so
 * work on two streams overlaps, as on a GPU with several queues; every command enqueued with
 * {@link SimStream#enqueue} takes at least {@link #latencyNanos()}. Its memory ({@link SimBuffer}) is
 * host memory that only commands on its lanes should touch. Thread-safe; made by
 * {@link SimDeviceProvider}, which owns it.
 */
public final class SimDevice extends AsynchronousDevice {
    private final long latencyNanos;
    private final AtomicInteger streams = new AtomicInteger();
    private final AtomicLong commandsRun = new AtomicLong();

    SimDevice(int id, long latencyNanos) {
        super(Context.of(SimDeviceProvider.TYPE, id), "simulated accelerator " + SimDeviceProvider.TYPE + ":" + id + " ("
                + latencyNanos / 1000 + " us per command, a thread per stream)");
        this.latencyNanos = latencyNanos;
    }

    /** A new lane with its own thread, named after this device, the kind and a number ({@code sim0-compute#1}). */
    @Override
    public SimStream createStream(StreamKind kind) {
        Objects.requireNonNull(kind, "kind");
        return new SimStream(this, kind, streams.incrementAndGet());
    }

    // The policy is AsynchronousDevice's StreamPolicy.ON_COMPLETION: an op is done when its lane has run
    // what it enqueued, which SimStream.onComplete reports from the lane's thread; and a lane waits for
    // another lane's event itself (supportsStreamWait), without blocking the thread that enqueues.

    /**
     * Device memory of {@code bytes} bytes, zero-filled.
     *
     * @throws IllegalArgumentException if {@code bytes} is negative or above {@link Integer#MAX_VALUE}
     */
    @Override
    public SimBuffer allocate(long bytes) {
        if (bytes < 0 || bytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("sim buffers hold 0.." + Integer.MAX_VALUE + " bytes, asked for " + bytes);
        }
        return new SimBuffer(this, ByteBuffer.allocateDirect((int) bytes).order(ByteOrder.nativeOrder()));
    }

    /** How long each command takes on a lane, in nanoseconds. */
    public long latencyNanos() {
        return latencyNanos;
    }

    /** How many streams this device has made. */
    public int streamsCreated() {
        return streams.get();
    }

    /** How many commands ({@link SimStream#enqueue}) its lanes have run, over all streams. */
    public long commandsRun() {
        return commandsRun.get();
    }

    void commandRan() {
        commandsRun.incrementAndGet();
    }

    @Override
    public String toString() {
        return "SimDevice[" + context() + "]";
    }
}
