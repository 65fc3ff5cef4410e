package org.depengine.device.cpu;

import java.util.Objects;
import org.depengine.api.device.Device;
import org.depengine.api.device.Event;
import org.depengine.api.device.Stream;
import org.depengine.api.device.StreamKind;

/**
 * A synchronous lane: work "enqueued" on it is work its driving thread does before returning, so at
 * any moment everything enqueued so far is done. Recording gives a completed event, waiting on an
 * event blocks the driving thread (the CPU has no device side to wait on), and callbacks run at once.
 * Thread-safe and stateless.
 */
final class CpuStream implements Stream {
    /** The event of a synchronous lane: done when recorded. */
    static final Event DONE = new Event() {
        @Override
        public boolean isDone() {
            return true;
        }

        @Override
        public void await() {
        }

        @Override
        public String toString() {
            return "CpuEvent[done]";
        }
    };

    private final Device device;
    private final StreamKind kind;

    CpuStream(Device device, StreamKind kind) {
        this.device = device;
        this.kind = kind;
    }

    @Override
    public Device device() {
        return device;
    }

    @Override
    public StreamKind kind() {
        return kind;
    }

    @Override
    public void bindToCurrentThread() {
        // Nothing to make current: the CPU is every thread's device.
    }

    @Override
    public Event record() {
        return DONE;
    }

    @Override
    public void waitFor(Event event) {
        Objects.requireNonNull(event, "event").await();
    }

    @Override
    public void onComplete(Runnable callback) {
        Objects.requireNonNull(callback, "callback").run();
    }

    @Override
    public void synchronize() {
        // Synchronous lane: nothing is ever outstanding.
    }

    @Override
    public Throwable takeAsyncError() {
        return null;
    }

    @Override
    public void close() {
    }

    @Override
    public String toString() {
        return "CpuStream[" + device.context() + ", " + kind + "]";
    }
}
