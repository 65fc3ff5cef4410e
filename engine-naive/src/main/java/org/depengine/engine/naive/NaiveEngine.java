package org.depengine.engine.naive;

import org.depengine.api.spi.EngineConfig;
import org.depengine.core.AbstractEngine;
import org.depengine.core.DeviceSlot;
import org.depengine.core.tracker.OpDef;
import org.depengine.core.tracker.OprBlock;

/**
 * Runs each op on the thread that pushed it, and returns from the push only when the op is finished
 * (an async op: when its callback came). The debugging reference: same validation, ordering and
 * failure rules as every engine, no threads of its own.
 *
 * <p>When an op cannot run at push time (another thread's op, or an async op, still holds one of its
 * variables), the pusher blocks until the releasing thread hands the op back to it, then runs it.
 * A push made from inside an op that depends on that op cannot wait for it: it returns at once and the
 * op runs on the thread that releases it.
 */
final class NaiveEngine extends AbstractEngine {

    /** Hands a ready op back to its blocked pusher. */
    private static final class Handoff {
        private boolean runnable; // guarded by this

        synchronized void offer() {
            runnable = true;
            notifyAll();
        }

        /** Blocks until offered; returns whether the thread was interrupted meanwhile. */
        synchronized boolean await() {
            boolean interrupted = false;
            while (!runnable) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    interrupted = true; // a push cannot be abandoned half-way: finish it, keep the status
                }
            }
            return interrupted;
        }
    }

    NaiveEngine(EngineConfig config) {
        super(NaiveEngineProvider.NAME, config);
    }

    @Override
    protected void prepare(OprBlock op, DeviceSlot slot) {
        if (op.def().kind() != OpDef.Kind.WAIT && !insideOwnOp()) {
            op.route = new Handoff();
        }
    }

    @Override
    protected void execute(OprBlock op, boolean pusherThread) {
        Handoff h = (Handoff) op.route;
        if (pusherThread || h == null) {
            run(op, null);
        } else {
            h.offer();
        }
    }

    @Override
    protected void afterPush(OprBlock op) {
        Handoff h = (Handoff) op.route;
        if (h == null) {
            return;
        }
        boolean interrupted = false;
        if (!op.isStarted()) {
            interrupted = h.await();
            run(op, null);
        }
        while (true) {
            try {
                op.awaitFinished(Long.MAX_VALUE);
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    protected void stopWorkers() {
        // No threads of its own.
    }
}
