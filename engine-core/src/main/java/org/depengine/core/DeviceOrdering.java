package org.depengine.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.LongAdder;
import org.depengine.api.device.Event;
import org.depengine.api.device.Stream;
import org.depengine.api.device.StreamKind;
import org.depengine.api.device.StreamPolicy;
import org.depengine.api.listen.OpListener;
import org.depengine.core.tracker.Fencing;
import org.depengine.core.tracker.OpDef;
import org.depengine.core.tracker.OpBlock;
import org.depengine.core.tracker.OpDevice;
import org.depengine.core.tracker.Var;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's side of device ops: what happens when a device op's function returns with work still
 * on its stream, and how an op released behind such an op waits for it.
 *
 * <p><b>Launch.</b> A device op is <em>launched</em> when its function returns and its stream's policy
 * says the work is not done yet; the op completes when the policy reports it done. Where the engine
 * releases at launch, the op's variables are released at once and the op becomes a <em>fence</em>
 * (see {@link OpBlock} and {@link Fencing}; the variables' side is in {@link Var}).
 *
 * <p><b>Waiting for fences.</b> Before an op released behind fences is dispatched, each fence still
 * running on the device is either left to stream order (same stream), turned into a device-side wait
 * on the fence's event (another stream of the same device, if the device can), or waited for on the
 * host by deferring the op until the fence is done (the CPU, other devices, internal ops). No thread
 * ever blocks on a device.
 *
 * <p>Counters (see {@link org.depengine.api.EngineDiagnostics#counters()}): ops launched early, fences
 * left to stream order, device-side waits, host deferrals. Thread-safe.
 */
final class DeviceOrdering {
    private static final Logger LOG = LoggerFactory.getLogger(DeviceOrdering.class);

    private final Diagnostics diag;
    final LongAdder launchedEarly = new LongAdder();
    final LongAdder sameStreamStarts = new LongAdder();
    final LongAdder deviceWaits = new LongAdder();
    final LongAdder hostDeferrals = new LongAdder();

    DeviceOrdering(Diagnostics diag) {
        this.diag = diag;
    }

    /**
     * Decides, for each fence (an op released at launch) that {@code op} was released behind, how {@code op} waits for it.
     * Keeps the fences to wait for on the device; defers the op on the host behind the others. Call
     * only when {@link OpBlock#hasFences()}.
     *
     * @return true if the op was deferred (it is dispatched again when the last of those fences is done)
     */
    boolean deferredBehindFences(OpBlock op) {
        return op.deferBehindFences(canWaitOnDevice(op), hostDeferrals);
    }

    /** Whether the op can wait for a producer of its own device on the device (a sync user op on a stream). */
    private static boolean canWaitOnDevice(OpBlock op) {
        OpDef def = op.def();
        OpDevice device = op.device();
        return def.kind() == OpDef.Kind.USER && def.isSync() && device != null && !op.context().isCpu()
                && device.supportsStreamWait();
    }

    /**
     * Makes {@code stream} wait, on the device, for the fences kept for {@code op} at dispatch that are
     * still running. Called on the op's thread just before its function runs.
     *
     * @throws org.depengine.api.EngineException if the device refuses the wait
     */
    void waitOnDevice(OpBlock op, Stream stream) {
        Fencing fencing = op.fencing();
        OpBlock[] fences = fencing == null ? null : fencing.takeDeviceFences();
        if (fences == null) {
            return;
        }
        for (OpBlock f : fences) {
            if (!f.isFence()) {
                continue;
            }
            if (f.startedStream() == stream) {
                sameStreamStarts.increment(); // stream order is enough
            } else {
                PluginGuard.waitFor(f.device().context(), stream, f.fencing().doneEvent());
                deviceWaits.increment();
            }
        }
    }

    /**
     * The function of a sync op returned: completes it if its stream's policy says its work is done on
     * return (always, for ops with no device), else {@linkplain #launched launches} it. Never throws.
     *
     * @return true if it completed the op and ended the caller's run with it ({@link OpBlock#completeEndingRun}):
     *     the caller must not touch the op any more
     */
    boolean returned(OpBlock op, StreamKind kind, Stream stream, boolean releaseAtLaunch) {
        OpDevice device = op.device();
        StreamPolicy policy;
        boolean doneOnReturn;
        try {
            policy = device == null ? StreamPolicy.SYNCHRONOUS : device.policy(kind);
            doneOnReturn = device == null || PluginGuard.doneOnReturn(device.context(), policy);
        } catch (Throwable e) {
            op.fail(e); // the plugin gave no usable policy: the op cannot tell when it is done
            return false;
        }
        if (doneOnReturn) {
            op.completeEndingRun();
            return true;
        }
        launched(op, device, policy, stream, releaseAtLaunch);
        return false;
    }

    /**
     * The function of a device op returned: its work is enqueued on {@code stream}, and the policy will
     * say when it is done. Releases the variables now if {@code releaseAtLaunch} (user ops only).
     * Never throws: a device that refuses the event or the completion hook fails the op.
     */
    private void launched(OpBlock op, OpDevice device, StreamPolicy policy, Stream stream, boolean releaseAtLaunch) {
        OpListener l = op.listener();
        if (l != null) {
            l.launched(op, System.nanoTime());
        }
        DeviceDone done = new DeviceDone(op, device, stream);
        try {
            boolean early = op.def().kind() == OpDef.Kind.USER && releaseAtLaunch;
            Event doneEvent = early && device.supportsStreamWait() ? PluginGuard.record(device.context(), stream) : null;
            diag.inFlight(op, true);
            if (early) {
                op.releaseAtLaunch(doneEvent);
                launchedEarly.increment();
            }
            PluginGuard.whenDone(device.context(), policy, stream, done);
        } catch (Throwable e) {
            // The device refused the event or the completion hook: the op fails now rather than hanging,
            // unless the policy reported it done before throwing.
            if (done.claim()) {
                op.fail(e);
            } else {
                LOG.warn("device op '{}' on {}: the plugin threw after reporting it done; ignored", op.name(),
                        device.context(), e);
            }
        }
    }

    /**
     * The done report a device op's policy runs: the first run completes the op, a second is ignored
     * (logged), so that a plugin calling back twice cannot complete an op twice.
     */
    private static final class DeviceDone implements Runnable {
        private static final VarHandle CLAIMED;

        static {
            try {
                CLAIMED = MethodHandles.lookup().findVarHandle(DeviceDone.class, "claimed", boolean.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private final OpBlock op;
        private final OpDevice device;
        private final Stream stream;
        @SuppressWarnings("unused") // accessed through CLAIMED
        private volatile boolean claimed;

        DeviceDone(OpBlock op, OpDevice device, Stream stream) {
            this.op = op;
            this.device = device;
            this.stream = stream;
        }

        /** True for the one caller that may complete the op. */
        boolean claim() {
            return CLAIMED.compareAndSet(this, false, true);
        }

        @Override
        public void run() {
            if (!claim()) {
                PluginGuard.doneTwice(device, op.name());
                return;
            }
            deviceFinished(op, device, stream);
        }
    }

    /** The policy says the device work of {@code op} is done (on a driver or worker thread). */
    private static void deviceFinished(OpBlock op, OpDevice device, Stream stream) {
        try {
            Throwable asyncError = PluginGuard.takeAsyncError(device.context(), stream);
            if (asyncError != null) {
                op.fail(asyncError);
            } else {
                op.complete();
            }
        } catch (RuntimeException | Error e) {
            // Runs on a driver thread that would swallow it: make an engine bug visible at least.
            LOG.error("completing device op '{}' failed; ops depending on it may never run", op.name(), e);
            throw e;
        }
    }
}
