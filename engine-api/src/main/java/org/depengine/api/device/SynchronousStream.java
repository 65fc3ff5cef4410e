package org.depengine.api.device;

import java.util.Objects;

/**
 * A synchronous lane: work "enqueued" on it is work its driving thread does before returning, so at any
 * moment everything enqueued so far is done. {@link #record()} gives {@link #DONE}; waiting for an event
 * blocks the driving thread (there is no device side to wait on); callbacks run at once, on the caller.
 * The stream of {@link SynchronousDevice}, and of any device whose work runs on the calling thread.
 * Stateless and thread-safe; closing it does nothing.
 */
public final class SynchronousStream implements Stream {
    /** The event of a synchronous lane: done when recorded. */
    public static final Event DONE = new Event() {
        @Override
        public boolean isDone() {
            return true;
        }

        @Override
        public void await() {
            // Done when recorded: nothing to wait for.
        }

        @Override
        public String toString() {
            return "Event[done]";
        }
    };

    private final Device device;
    private final StreamKind kind;

    /**
     * A lane of {@code device}.
     *
     * @param device the device the lane belongs to
     * @param kind the lane's role
     * @throws NullPointerException if an argument is null
     */
    public SynchronousStream(Device device, StreamKind kind) {
        this.device = Objects.requireNonNull(device, "device");
        this.kind = Objects.requireNonNull(kind, "kind");
    }

    @Override
    public Device device() {
        return device;
    }

    @Override
    public StreamKind kind() {
        return kind;
    }

    /** Nothing to make current. */
    @Override
    public void bindToCurrentThread() {
        // The work runs on the calling thread itself.
    }

    /** {@link #DONE}. */
    @Override
    public Event record() {
        return DONE;
    }

    /** Blocks the calling thread until {@code event} is done. */
    @Override
    public void waitFor(Event event) {
        Objects.requireNonNull(event, "event").await();
    }

    /** Runs {@code callback} now, on the caller. */
    @Override
    public void onComplete(Runnable callback) {
        Objects.requireNonNull(callback, "callback").run();
    }

    /** Returns at once: nothing is ever outstanding. */
    @Override
    public void synchronize() {
        // Synchronous lane: nothing is ever outstanding.
    }

    /** Always null: errors are thrown by the work itself. */
    @Override
    public Throwable takeAsyncError() {
        return null;
    }

    @Override
    public void close() {
        // Holds nothing.
    }

    @Override
    public String toString() {
        return device.context() + "/" + kind.name().toLowerCase(java.util.Locale.ROOT);
    }
}
