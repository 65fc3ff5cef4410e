package org.depengine.api;

/**
 * What kind of work an op does; it decides where a threaded engine runs the op and how failures and
 * shutdown treat it. The names follow MXNet's {@code FnProperty}.
 */
public enum FnProperty {
    /** An ordinary op: runs on the compute workers of its device. */
    NORMAL,
    /** A copy from a device to the host: runs on the copy workers (device-to-host stream). */
    COPY_FROM_DEVICE,
    /** A copy from the host to a device: runs on the copy workers (host-to-device stream). */
    COPY_TO_DEVICE,
    /** A CPU op that should jump the queue: runs on the shared CPU priority pool, higher priority first. */
    CPU_PRIORITIZED,
    /**
     * An op that only starts asynchronous work (its {@link AsyncFn} returns quickly and completes later):
     * a threaded engine runs it inline on the pushing thread when its dependencies are met at push time.
     */
    ASYNC,
    /** Deletes a variable; the only kind of op still run after {@link Engine#notifyShutdown()}. */
    DELETE_VAR,
    /** A device op that should jump the queue: runs on the device's priority workers. */
    DEVICE_PRIORITIZED,
    /** Runs even when a variable it reads or writes carries a failure (clean-up, logging). */
    NO_SKIP;

    /**
     * Whether this property sends an op to copy workers.
     *
     * @return whether this property sends an op to copy workers
     */
    public boolean isCopy() {
        return this == COPY_FROM_DEVICE || this == COPY_TO_DEVICE;
    }
}
