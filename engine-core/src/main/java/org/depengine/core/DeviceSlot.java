package org.depengine.core;

import org.depengine.api.Context;
import org.depengine.api.device.Device;
import org.depengine.api.device.Stream;
import org.depengine.api.device.StreamKind;
import org.depengine.api.device.StreamPolicy;

/**
 * An engine's view of one device: the device, its stream policies by kind, and the streams shared by
 * ops that run without a worker-owned stream (naive and pooled engines, inline runs). Shared streams
 * are bound to the running thread before each op.
 */
public final class DeviceSlot {
    private static final StreamKind[] KINDS = StreamKind.values();

    private final Device device;
    private final StreamPolicy[] policies = new StreamPolicy[KINDS.length];
    private final Stream[] shared = new Stream[KINDS.length]; // guarded by this; created on first use

    DeviceSlot(Device device) {
        this.device = device;
        for (StreamKind k : KINDS) {
            policies[k.ordinal()] = device.policy(k);
        }
    }

    /** The device. */
    public Device device() {
        return device;
    }

    /** The device's context. */
    public Context context() {
        return device.context();
    }

    /** The policy for streams of that kind. */
    public StreamPolicy policy(StreamKind kind) {
        return policies[kind.ordinal()];
    }

    /** The shared stream of that kind, created on first use. */
    public synchronized Stream sharedStream(StreamKind kind) {
        Stream s = shared[kind.ordinal()];
        if (s == null) {
            s = device.createStream(kind);
            shared[kind.ordinal()] = s;
        }
        return s;
    }

    /** Closes the shared streams. */
    synchronized void close() {
        for (int i = 0; i < shared.length; i++) {
            if (shared[i] != null) {
                shared[i].close();
                shared[i] = null;
            }
        }
    }
}
