package org.depengine.core.device;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import org.depengine.api.device.Event;
import org.depengine.api.device.Stream;
import org.depengine.api.device.StreamKind;
import org.depengine.api.device.StreamPolicy;
import org.depengine.api.listen.OpListener;
import org.depengine.core.tracker.FenceState;
import org.depengine.core.tracker.OpDef;
import org.depengine.core.tracker.OpBlock;
import org.depengine.core.tracker.OpDevice;
import org.depengine.core.tracker.Var;
import org.depengine.core.wait.Diagnostics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's side of device ops: what happens when a device op's function returns with work still
 * on its stream, and how an op released behind such an op waits for it.
 *
 * <p><b>Launch.</b> A device op is <em>launched</em> when its function returns and its stream's policy
 * says the work is not done yet; the op completes when the policy reports it done. Where the engine
 * releases at launch, the op's variables are released at once and the op becomes a <em>fence</em>
 * (see {@link FenceState}; the variables' side is in {@link Var}).
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
public final class DeviceOrdering {
    private static final Logger LOG = LoggerFactory.getLogger(DeviceOrdering.class);

    private final Diagnostics diag;
    private final LongAdder launchedEarly = new LongAdder();
    private final LongAdder sameStreamStarts = new LongAdder();
    private final LongAdder deviceWaits = new LongAdder();
    private final LongAdder hostDeferrals = new LongAdder();

    /** The ordering of an engine whose in-flight ops {@code diag} registers. */
    public DeviceOrdering(Diagnostics diag) {
        this.diag = diag;
    }

    /** Its counters, by the names {@link org.depengine.api.EngineDiagnostics#counters()} documents. */
    public Map<String, Long> counters() {
        Map<String, Long> c = new LinkedHashMap<>();
        c.put("launchedEarly", launchedEarly.sum());
        c.put("sameStreamStarts", sameStreamStarts.sum());
        c.put("deviceWaits", deviceWaits.sum());
        c.put("hostDeferrals", hostDeferrals.sum());
        return c;
    }

    /**
     * Decides, for each fence (an op released at launch) that {@code op} was released behind, how {@code op} waits for it.
     * Keeps the fences to wait for on the device; defers the op on the host behind the others. Call
     * only when {@link OpBlock#hasFences()}.
     *
     * @return true if the op was deferred (it is dispatched again when the last of those fences is done)
     */
    public boolean deferredBehindFences(OpBlock op) {
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
    public void waitOnDevice(OpBlock op, Stream stream) {
        FenceState fence = op.fence();
        OpBlock[] fences = fence == null ? null : fence.takeDeviceFences();
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
                PluginGuard.waitFor(f.device().context(), stream, f.fence().doneEvent());
                deviceWaits.increment();
            }
        }
    }

    /**
     * The function of a sync op returned: completes it if its stream's policy says its work is done on
     * return (always, for ops with no device), else {@linkplain #launched launches} it. Never throws.
     */
    public void returned(OpBlock op, StreamKind kind, Stream stream, boolean releaseAtLaunch) {
        OpDevice device = op.device();
        StreamPolicy policy;
        boolean doneOnReturn;
        try {
            policy = device == null ? StreamPolicy.SYNCHRONOUS : device.policy(kind);
            doneOnReturn = device == null || PluginGuard.doneOnReturn(device.context(), policy);
        } catch (Throwable e) {
            op.completeRun(e); // the plugin gave no usable policy: the op cannot tell when it is done
            return;
        }
        if (doneOnReturn) {
            op.completeRun(null);
            return;
        }
        launched(op, device, policy, stream, releaseAtLaunch);
    }

    /**
     * The function of a device op returned: its work is enqueued on {@code stream}, and the policy will
     * say when it is done. Releases the variables now if {@code releaseAtLaunch} (user ops only). From
     * here on the op's completion is handed out: the device's report and a failed launch claim it
     * ({@link OpBlock#claim}), and the one that wins completes it. Never throws: a device that refuses
     * the event or the completion hook fails the op.
     */
    private void launched(OpBlock op, OpDevice device, StreamPolicy policy, Stream stream, boolean releaseAtLaunch) {
        OpListener l = op.listener();
        if (l != null) {
            l.launched(op, System.nanoTime());
        }
        try {
            boolean early = op.def().kind() == OpDef.Kind.USER && releaseAtLaunch;
            Event doneEvent = early && device.supportsStreamWait() ? PluginGuard.record(device.context(), stream) : null;
            diag.inFlight(op, true);
            if (early) {
                op.releaseAtLaunch(doneEvent);
                launchedEarly.increment();
            }
            PluginGuard.whenDone(device.context(), policy, stream, new DeviceDone(op, device, stream));
        } catch (Throwable e) {
            // The device refused the event or the completion hook: the op fails now rather than hanging,
            // unless the policy reported it done before throwing.
            if (op.claim()) {
                op.completeClaimed(e);
            } else {
                LOG.warn("device op '{}' on {}: the plugin threw after reporting it done; ignored", op.name(),
                        device.context(), e);
            }
        }
    }

    /**
     * The done report a device op's policy runs: the report that claims the op completes it; another
     * (a plugin calling back twice) finds it claimed and is logged, never completing an op twice. A
     * block that was launched is never reused by a replay, so a late report cannot reach a later run.
     */
    private record DeviceDone(OpBlock op, OpDevice device, Stream stream) implements Runnable {
        @Override
        public void run() {
            if (!op.claim()) {
                PluginGuard.doneTwice(device, op.name());
                return;
            }
            try {
                // Claimed first: a second report must not take the stream's next async error.
                op.completeClaimed(PluginGuard.takeAsyncError(device.context(), stream));
            } catch (RuntimeException | Error e) {
                // Runs on a driver thread that would swallow it: make an engine bug visible at least.
                LOG.error("completing device op '{}' failed; ops depending on it may never run", op.name(), e);
                throw e;
            }
        }
    }
}
