package org.depengine.core.device;

import java.util.concurrent.ConcurrentHashMap;
import org.depengine.api.Context;
import org.depengine.api.device.Devices;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An engine's devices by context, each opened on first use (acquiring its device from
 * {@link Devices}) and closed with the engine (releasing it). Thread-safe; the lookup a push makes is
 * lock-free and, for a pusher that keeps pushing to the same context, one reference comparison.
 */
public final class EngineDevices {
    private static final Logger LOG = LoggerFactory.getLogger(EngineDevices.class);

    private final ConcurrentHashMap<Context, EngineDevice> devices = new ConcurrentHashMap<>();
    private volatile Last last; // the device looked up last: most pushes go to the same context

    private record Last(Context key, EngineDevice device) {
    }

    /**
     * The device of a context, opened on first use.
     *
     * @throws RuntimeException whatever {@link Devices#acquire} throws for a context no device serves
     */
    public EngineDevice get(Context ctx) {
        Last l = last;
        if (l != null && l.key == ctx) {
            return l.device; // a pusher usually pushes to the same Context instance again and again
        }
        EngineDevice s = devices.get(ctx);
        if (s == null) {
            // Acquired for this engine; released in close(), which lets the provider close its devices.
            s = devices.computeIfAbsent(ctx, c -> new EngineDevice(c, Devices.acquire(c)));
        }
        last = new Last(ctx, s);
        return s;
    }

    /** Closes every device's shared streams and releases its device; called once, after the last op. */
    public void close() {
        for (EngineDevice s : devices.values()) {
            try {
                s.close();
            } catch (RuntimeException e) {
                LOG.warn("closing the streams of {} failed", s.context(), e);
            }
            Devices.release(s.context());
        }
    }
}
