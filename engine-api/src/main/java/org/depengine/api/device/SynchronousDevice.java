package org.depengine.api.device;

import org.depengine.api.Context;

/**
 * A skeleton for a device whose work runs on the thread that drives the stream: its streams are
 * {@link SynchronousStream}s, its policy is {@link StreamPolicy#SYNCHRONOUS} and it needs no device-side
 * waits. A subclass adds memory ({@link Device#allocate}) and primitives ({@link Device#primitive}) as it
 * has them. Thread-safe if the subclass is.
 */
public abstract class SynchronousDevice extends AbstractDevice {
    /**
     * A device of the given context.
     *
     * @param context the device context
     * @param description a human-readable description
     * @throws NullPointerException if an argument is null
     */
    protected SynchronousDevice(Context context, String description) {
        super(context, description);
    }

    /** A {@link SynchronousStream} of this device. */
    @Override
    public Stream createStream(StreamKind kind) {
        return new SynchronousStream(this, kind);
    }

    /** {@link StreamPolicy#SYNCHRONOUS}, for every kind. */
    @Override
    public final StreamPolicy policy(StreamKind kind) {
        return StreamPolicy.SYNCHRONOUS;
    }

    /** No: a synchronous lane's work is done when the op that enqueued it returns. */
    @Override
    public final boolean supportsStreamWait() {
        return false;
    }
}
