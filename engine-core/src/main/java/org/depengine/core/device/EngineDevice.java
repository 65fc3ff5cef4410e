package org.depengine.core.device;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.depengine.api.Context;
import org.depengine.api.device.Device;
import org.depengine.api.device.Stream;
import org.depengine.api.device.StreamKind;
import org.depengine.api.device.StreamPolicy;
import org.depengine.core.tracker.OpDevice;

/**
 * An engine's view of one device: the device, its stream policies by kind, and the streams shared by
 * ops that run without a worker-owned stream (naive and pooled engines, inline runs). Shared streams
 * are bound to the running thread before each op. Every call into the plugin goes through
 * {@link PluginGuard}: a policy or stream the plugin fails to give is an
 * {@link org.depengine.api.EngineException} for the op that asked, not for the push.
 */
public final class EngineDevice {
    private static final StreamKind[] KINDS = StreamKind.values();

    private final Context context;
    private final Device device;
    private final boolean streamWait;
    // Resolved on first use, so that a plugin's broken policy fails the op that needs it.
    private final AtomicReferenceArray<StreamPolicy> policies = new AtomicReferenceArray<>(KINDS.length);
    // Read on every op that runs without a worker-owned stream: lock-free once created.
    private final AtomicReferenceArray<Stream> shared = new AtomicReferenceArray<>(KINDS.length);
    private final AtomicBoolean warnedDoneTwice = new AtomicBoolean();
    // What its ops carry: a view, so that this public class does not expose the tracker's interface (the
    // tracker is exported to the engine modules only). One per device: ops compare it by identity.
    private final OpDevice forOps = new ForOps();

    EngineDevice(Context context, Device device) {
        this.context = context;
        this.device = device;
        this.streamWait = PluginGuard.supportsStreamWait(context, device);
    }

    /** The device. */
    public Device device() {
        return device;
    }

    /** The device's context. */
    public Context context() {
        return context;
    }

    /** Whether a stream of this device can wait for an event of another of its streams on the device. */
    public boolean supportsStreamWait() {
        return streamWait;
    }

    /**
     * The policy for streams of that kind.
     *
     * @throws org.depengine.api.EngineException if the plugin throws or gives none
     */
    public StreamPolicy policy(StreamKind kind) {
        StreamPolicy p = policies.get(kind.ordinal());
        if (p == null) {
            p = PluginGuard.policy(context, device, kind);
            policies.compareAndSet(kind.ordinal(), null, p);
        }
        return p;
    }

    /**
     * A new stream of that kind for a worker of its own, bound to the calling thread.
     *
     * @throws org.depengine.api.EngineException if the plugin cannot make or bind it
     */
    public Stream openWorkerStream(StreamKind kind) {
        return PluginGuard.openBound(context, device, kind);
    }

    /**
     * The shared stream of that kind, created on first use.
     *
     * @throws org.depengine.api.EngineException if the plugin cannot make it
     */
    public Stream sharedStream(StreamKind kind) {
        Stream s = shared.get(kind.ordinal());
        return s != null ? s : createShared(kind);
    }

    /**
     * The shared stream of that kind, bound to the calling thread.
     *
     * @throws org.depengine.api.EngineException if the plugin cannot make or bind it
     */
    public Stream boundSharedStream(StreamKind kind) {
        Stream s = sharedStream(kind);
        PluginGuard.bind(context, s);
        return s;
    }

    private synchronized Stream createShared(StreamKind kind) {
        Stream s = shared.get(kind.ordinal());
        if (s == null) {
            s = PluginGuard.createStream(context, device, kind);
            shared.set(kind.ordinal(), s);
        }
        return s;
    }

    /** This device as its ops carry it ({@code OpBlock.device()}). */
    @SuppressWarnings("exports") // the tracker is the engine modules' only
    public OpDevice forOps() {
        return forOps;
    }

    /** Whether this is the first done-twice report of this device (the one logged at WARN). */
    boolean firstDoneTwice() {
        return warnedDoneTwice.compareAndSet(false, true);
    }

    /** Closes the shared streams. */
    synchronized void close() {
        for (int i = 0; i < shared.length(); i++) {
            Stream s = shared.getAndSet(i, null);
            if (s != null) {
                PluginGuard.close(context, s);
            }
        }
    }

    private final class ForOps implements OpDevice {
        @Override
        public Context context() {
            return context;
        }

        @Override
        public boolean supportsStreamWait() {
            return streamWait;
        }

        @Override
        public StreamPolicy policy(StreamKind kind) {
            return EngineDevice.this.policy(kind);
        }

        @Override
        public Stream boundSharedStream(StreamKind kind) {
            return EngineDevice.this.boundSharedStream(kind);
        }

        @Override
        public boolean firstDoneTwice() {
            return EngineDevice.this.firstDoneTwice();
        }
    }
}
