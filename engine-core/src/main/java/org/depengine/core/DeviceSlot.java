package org.depengine.core;

import java.util.concurrent.atomic.AtomicReferenceArray;
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
    private final boolean streamWait;
    private final StreamPolicy[] policies = new StreamPolicy[KINDS.length];
    // Read on every op that runs without a worker-owned stream: lock-free once created.
    private final AtomicReferenceArray<Stream> shared = new AtomicReferenceArray<>(KINDS.length);

    DeviceSlot(Device device) {
        this.device = device;
        this.streamWait = device.supportsStreamWait();
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

    /** Whether a stream of this device can wait for an event of another of its streams on the device. */
    public boolean supportsStreamWait() {
        return streamWait;
    }

    /** The policy for streams of that kind. */
    public StreamPolicy policy(StreamKind kind) {
        return policies[kind.ordinal()];
    }

    /** The shared stream of that kind, created on first use. */
    public Stream sharedStream(StreamKind kind) {
        Stream s = shared.get(kind.ordinal());
        return s != null ? s : createShared(kind);
    }

    private synchronized Stream createShared(StreamKind kind) {
        Stream s = shared.get(kind.ordinal());
        if (s == null) {
            s = device.createStream(kind);
            shared.set(kind.ordinal(), s);
        }
        return s;
    }

    /** Closes the shared streams. */
    synchronized void close() {
        for (int i = 0; i < shared.length(); i++) {
            Stream s = shared.getAndSet(i, null);
            if (s != null) {
                s.close();
            }
        }
    }
}
