package org.depengine.api.device;

import java.util.Objects;
import org.depengine.api.Context;

/**
 * What every device skeleton shares: its context and description. Extend {@link SynchronousDevice} or
 * {@link AsynchronousDevice} rather than this class; they add the stream policy that fits. Thread-safe
 * if the subclass is.
 */
public abstract class AbstractDevice implements Device {
    private final Context context;
    private final String description;

    /**
     * A device of the given context.
     *
     * @param context the device context
     * @param description a human-readable description
     * @throws NullPointerException if an argument is null
     */
    protected AbstractDevice(Context context, String description) {
        this.context = Objects.requireNonNull(context, "context");
        this.description = Objects.requireNonNull(description, "description");
    }

    @Override
    public final Context context() {
        return context;
    }

    @Override
    public String description() {
        return description;
    }

    @Override
    public String toString() {
        return context + " (" + description + ")";
    }
}
