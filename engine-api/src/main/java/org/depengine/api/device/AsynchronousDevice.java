package org.depengine.api.device;

import java.util.Objects;
import org.depengine.api.Context;

/**
 * A skeleton for a device whose streams run work asynchronously: an op's function only enqueues work,
 * and the op is done when the stream's completion callback fires ({@link StreamPolicy#ON_COMPLETION},
 * for every kind of stream). Its streams wait for one another's events on the device
 * ({@link #supportsStreamWait()} is true). A subclass makes the streams, and adds memory and primitives.
 * Thread-safe if the subclass is.
 */
public abstract class AsynchronousDevice extends AbstractDevice {
    /**
     * A device of the given context.
     *
     * @param context the device context
     * @param description a human-readable description
     * @throws NullPointerException if an argument is null
     */
    protected AsynchronousDevice(Context context, String description) {
        super(context, description);
    }

    /** {@link StreamPolicy#ON_COMPLETION}, for every kind. */
    @Override
    public final StreamPolicy policy(StreamKind kind) {
        Objects.requireNonNull(kind, "kind");
        return StreamPolicy.ON_COMPLETION;
    }

    /** Yes: a stream waits for another stream's event on the device, without blocking the host. */
    @Override
    public boolean supportsStreamWait() {
        return true;
    }
}
