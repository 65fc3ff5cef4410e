package org.depengine.core.device;

import org.depengine.api.Context;
import org.depengine.api.EngineException;
import org.depengine.api.device.Device;
import org.depengine.api.device.Event;
import org.depengine.api.device.Stream;
import org.depengine.api.device.StreamKind;
import org.depengine.api.device.StreamPolicy;
import org.depengine.core.tracker.OpDevice;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place the engine calls into a device plugin ({@link Device}, {@link Stream},
 * {@link StreamPolicy}). Whatever a plugin does wrong (throws, returns null) comes back as an
 * {@link EngineException} naming the device type, the device and the offence, which the caller turns
 * into the failure of the op involved; nothing a plugin does may kill a worker or leave an op hanging.
 * Stateless; every method may be called from any thread.
 */
final class PluginGuard {
    private static final Logger LOG = LoggerFactory.getLogger(PluginGuard.class);

    private PluginGuard() {
    }

    /** The failure of a plugin call: names the type, the device and what it did. */
    static EngineException offence(Context ctx, String call, String what, Throwable cause) {
        return new EngineException("device plugin '" + ctx.deviceType() + "' (device " + ctx + "): " + call + " " + what
                + "; the op fails, its dependants are skipped, the engine goes on", cause);
    }

    private static EngineException threw(Context ctx, String call, Throwable t) {
        return offence(ctx, call, "threw " + t, t);
    }

    /** {@link Device#createStream}, which must return a stream. */
    public static Stream createStream(Context ctx, Device device, StreamKind kind) {
        Stream s;
        try {
            s = device.createStream(kind);
        } catch (Throwable t) {
            throw threw(ctx, "Device.createStream(" + kind + ")", t);
        }
        if (s == null) {
            throw offence(ctx, "Device.createStream(" + kind + ")", "returned null", null);
        }
        return s;
    }

    /** {@link Stream#bindToCurrentThread()}. */
    public static void bind(Context ctx, Stream stream) {
        try {
            stream.bindToCurrentThread();
        } catch (Throwable t) {
            throw threw(ctx, "Stream.bindToCurrentThread()", t);
        }
    }

    /**
     * A stream for a worker of its own: created and bound to the calling thread; closed again if the
     * bind fails.
     */
    public static Stream openBound(Context ctx, Device device, StreamKind kind) {
        Stream s = createStream(ctx, device, kind);
        try {
            bind(ctx, s);
        } catch (EngineException e) {
            close(ctx, s);
            throw e;
        }
        return s;
    }

    /** {@link Device#policy}, which must return a policy. */
    static StreamPolicy policy(Context ctx, Device device, StreamKind kind) {
        StreamPolicy p;
        try {
            p = device.policy(kind);
        } catch (Throwable t) {
            throw threw(ctx, "Device.policy(" + kind + ")", t);
        }
        if (p == null) {
            throw offence(ctx, "Device.policy(" + kind + ")", "returned null", null);
        }
        return p;
    }

    /** {@link StreamPolicy#doneOnReturn()}. */
    static boolean doneOnReturn(Context ctx, StreamPolicy policy) {
        try {
            return policy.doneOnReturn();
        } catch (Throwable t) {
            throw threw(ctx, "StreamPolicy.doneOnReturn()", t);
        }
    }

    /** {@link Device#supportsStreamWait()}; a device that throws is taken not to support it (logged). */
    static boolean supportsStreamWait(Context ctx, Device device) {
        try {
            return device.supportsStreamWait();
        } catch (Throwable t) {
            LOG.warn("device plugin '{}' (device {}): Device.supportsStreamWait() threw; taken as false", ctx.deviceType(),
                    ctx, t);
            return false;
        }
    }

    /** {@link Stream#record()}, which must return an event. */
    static Event record(Context ctx, Stream stream) {
        Event e;
        try {
            e = stream.record();
        } catch (Throwable t) {
            throw threw(ctx, "Stream.record()", t);
        }
        if (e == null) {
            throw offence(ctx, "Stream.record()", "returned null", null);
        }
        return e;
    }

    /** {@link Stream#waitFor}. */
    static void waitFor(Context ctx, Stream stream, Event event) {
        try {
            stream.waitFor(event);
        } catch (Throwable t) {
            throw threw(ctx, "Stream.waitFor(Event)", t);
        }
    }

    /** {@link StreamPolicy#whenDone}; {@code done} must guard itself against being run twice. */
    static void whenDone(Context ctx, StreamPolicy policy, Stream stream, Runnable done) {
        try {
            policy.whenDone(stream, done);
        } catch (Throwable t) {
            throw threw(ctx, "StreamPolicy.whenDone", t);
        }
    }

    /** {@link Stream#takeAsyncError()}; a plugin that throws here reports that as the error. */
    static Throwable takeAsyncError(Context ctx, Stream stream) {
        try {
            return stream.takeAsyncError();
        } catch (Throwable t) {
            return threw(ctx, "Stream.takeAsyncError()", t);
        }
    }

    /** {@link Stream#close()}; a failure is logged, never thrown (closing goes on with the next stream). */
    public static void close(Context ctx, Stream stream) {
        try {
            stream.close();
        } catch (Throwable t) {
            LOG.warn("device plugin '{}' (device {}): Stream.close() threw; ignored", ctx.deviceType(), ctx, t);
        }
    }

    /** The done report of a device op came a second time: ignored; the first such report of a device is logged at WARN. */
    static void doneTwice(OpDevice device, String opName) {
        Context ctx = device.context();
        if (device.firstDoneTwice()) {
            LOG.warn("device plugin '{}' (device {}): StreamPolicy.whenDone reported op '{}' done twice; the second report "
                    + "is ignored (further ones from this device are logged at DEBUG)", ctx.deviceType(), ctx, opName);
        } else {
            LOG.debug("device plugin '{}' (device {}): op '{}' reported done twice; ignored", ctx.deviceType(), ctx, opName);
        }
    }
}
