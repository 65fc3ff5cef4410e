package org.depengine.core.dispatch;

import org.depengine.api.device.Stream;
import org.depengine.api.device.StreamKind;
import java.util.function.BooleanSupplier;
import org.depengine.api.listen.OpListener;
import org.depengine.core.device.DeviceOrdering;
import org.depengine.core.exec.CurrentOp;
import org.depengine.core.exec.EngineThread;
import org.depengine.core.tracker.OpBlock;
import org.depengine.core.tracker.OpDef;
import org.depengine.core.tracker.OpDevice;
import org.depengine.core.tracker.SkipRule;
import org.depengine.core.wait.Diagnostics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Running one ready op on the calling thread, the same for every engine: the stream it runs on, the
 * skip rule ({@link SkipRule}), the function, and what its return or throw means. The dispatcher's
 * {@code run} and {@code refuse} delegate here.
 */
final class OpExecution {
    private static final Logger LOG = LoggerFactory.getLogger(OpExecution.class);

    private final DeviceOrdering ordering;
    private final Diagnostics diag;
    private final BooleanSupplier shutdownNotified;
    private final boolean releasesAtLaunch;

    /**
     * @param shutdownNotified whether the engine's {@code notifyShutdown} was called (the skip rule)
     * @param releasesAtLaunch whether device ops release their variables at launch (the dispatch policy's)
     */
    OpExecution(DeviceOrdering ordering, Diagnostics diag, BooleanSupplier shutdownNotified, boolean releasesAtLaunch) {
        this.ordering = ordering;
        this.diag = diag;
        this.shutdownNotified = shutdownNotified;
        this.releasesAtLaunch = releasesAtLaunch;
    }

    /**
     * Runs a ready op on the calling thread: applies the skip rules, runs the function, and completes
     * the op when the function returns (sync) or leaves that to its callback (async). Never throws.
     *
     * @param ownStream the calling worker's stream, or null to use the device's shared stream (bound
     *     to the calling thread first)
     * @param currentOp the calling thread's current-op holder if the caller keeps it, else null
     */
    void run(OpBlock op, Stream ownStream, OpBlock[] currentOp) {
        try {
            runOnce(op, ownStream, currentOp);
        } finally {
            op.endRun(); // last: a replay's block may be reused once it is finished too
        }
    }

    private void runOnce(OpBlock op, Stream ownStream, OpBlock[] currentOp) {
        OpDef def = op.def();
        OpListener l = op.listener();
        Stream stream = ownStream;
        StreamKind kind = StreamKind.of(def.prop());
        try {
            OpDevice device = op.device();
            if (stream == null && device != null) {
                stream = device.boundSharedStream(kind);
            }
        } catch (Throwable e) {
            refuse(op, e);
            return;
        }
        op.start(stream);
        if (l != null) {
            l.started(op, System.nanoTime());
        }
        if (SkipRule.skipped(op, shutdownNotified.getAsBoolean())) {
            return;
        }
        Thread t = Thread.currentThread();
        EngineThread et = t instanceof EngineThread ? (EngineThread) t : null;
        OpBlock[] holder = et != null ? null : currentOp != null ? currentOp : CurrentOp.otherThreadHolder();
        OpBlock outer;
        if (et != null) {
            outer = et.currentOp;
            et.currentOp = op;
        } else {
            outer = holder[0];
            holder[0] = op;
        }
        Throwable thrown = null;
        try {
            ordering.waitOnDevice(op, stream);
            if (def.isSync()) {
                def.syncFn().run(op);
            } else {
                def.asyncFn().run(op, op);
            }
        } catch (Throwable e) {
            thrown = e;
        } finally {
            if (et != null) {
                et.currentOp = outer;
            } else {
                holder[0] = outer;
            }
        }
        if (thrown != null) {
            fnThrew(op, thrown);
        } else if (def.isSync()) {
            ordering.returned(op, kind, stream, releasesAtLaunch);
        } else if (!op.isCompleted()) {
            diag.inFlight(op, false); // the callback is still to come
        }
    }

    /**
     * Fails a ready op that cannot run because its stream could not be had (the device plugin failed
     * to make or bind it), after the skip rules: an op that would be skipped is skipped. Never throws.
     */
    void refuse(OpBlock op, Throwable cause) {
        op.start(null);
        if (!SkipRule.skipped(op, shutdownNotified.getAsBoolean())) {
            op.completeRun(cause);
        }
    }

    /**
     * The op's function threw: a sync op fails (its runner alone completes it); an async op fails
     * unless its callback completed it first (then the throw is logged and ignored).
     */
    private static void fnThrew(OpBlock op, Throwable e) {
        if (op.def().isSync()) {
            op.completeRun(e);
        } else if (op.claim()) {
            op.completeClaimed(e);
        } else {
            LOG.warn("op '{}' threw after it had completed; the exception is ignored", op.name(), e);
        }
    }
}
