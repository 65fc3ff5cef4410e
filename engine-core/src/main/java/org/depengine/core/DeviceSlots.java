package org.depengine.core;

import java.util.concurrent.ConcurrentHashMap;
import org.depengine.api.Context;
import org.depengine.api.device.Devices;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An engine's device slots by context, each opened on first use (acquiring its device from
 * {@link Devices}) and closed with the engine (releasing it). Thread-safe; the lookup a push makes is
 * lock-free and, for a pusher that keeps pushing to the same context, one reference comparison.
 */
final class DeviceSlots {
    private static final Logger LOG = LoggerFactory.getLogger(DeviceSlots.class);

    private final ConcurrentHashMap<Context, DeviceSlot> slots = new ConcurrentHashMap<>();
    private volatile Last last; // the slot looked up last: most pushes go to the same context

    private record Last(Context key, DeviceSlot slot) {
    }

    /**
     * The slot of a context, opened on first use.
     *
     * @throws RuntimeException whatever {@link Devices#acquire} throws for a context no device serves
     */
    DeviceSlot get(Context ctx) {
        Last l = last;
        if (l != null && l.key == ctx) {
            return l.slot; // a pusher usually pushes to the same Context instance again and again
        }
        DeviceSlot s = slots.get(ctx);
        if (s == null) {
            // Acquired for this engine; released in close(), which lets the provider close its devices.
            s = slots.computeIfAbsent(ctx, c -> new DeviceSlot(c, Devices.acquire(c)));
        }
        last = new Last(ctx, s);
        return s;
    }

    /** Closes every slot's shared streams and releases its device; called once, after the last op. */
    void close() {
        for (DeviceSlot s : slots.values()) {
            try {
                s.close();
            } catch (RuntimeException e) {
                LOG.warn("closing the streams of {} failed", s.context(), e);
            }
            Devices.release(s.context());
        }
    }
}
