package org.depengine.engine.naive;

import java.util.ArrayDeque;
import org.depengine.api.spi.EngineConfig;
import org.depengine.core.AbstractEngine;
import org.depengine.core.EngineDevice;
import org.depengine.core.exec.CallerThreads;
import org.depengine.core.tracker.OpDef;
import org.depengine.core.tracker.OpBlock;
import org.depengine.core.tracker.OpRoute;

/**
 * Runs each op on the thread that pushed it, and returns from the push only when the op is finished
 * (an async op: when its callback came). The debugging reference: same validation, ordering and
 * failure rules as every engine, no threads of its own.
 *
 * <p>When an op cannot run at push time (another thread's op, or an async op, still holds one of its
 * variables), the pusher blocks until the releasing thread hands the op back to it, then runs it.
 * A push made from inside an op that depends on that op cannot wait for it: it returns at once and the
 * op runs on the thread that releases it.
 *
 * <p><b>Bounded stack depth.</b> An op that becomes ready on a thread already running an op of this
 * engine (pushed from inside an op, or released by an op's completion) is not run there and then,
 * which would nest one run inside another for every link of a chain: it is queued on that thread
 * (a trampoline) and run when the outer run returns, in the order the ops became ready. Even if a run
 * ends in an {@link Error}, the ops queued behind it are run before the error goes on.
 */
final class NaiveEngine extends AbstractEngine {
    /**
     * Per thread: whether a run is in progress, and the ops waiting for it to return; and the thread's
     * hand-off, reused by its pushes one after the other (see {@link #prepare}).
     */
    private static final class Trampoline {
        final Thread owner = Thread.currentThread(); // made by ThreadLocal.withInitial on its own thread
        boolean running;
        final ArrayDeque<OpBlock> queued = new ArrayDeque<>();
        final Handoff handoff = new Handoff(this);
        final CallerThreads.Caller caller; // this thread's counts for the engine's metrics

        Trampoline(CallerThreads.Caller caller) {
            this.caller = caller;
        }
    }

    /** The metrics group of the pushing threads, which run the ops (EngineMetrics). */
    private final CallerThreads callers = new CallerThreads(this, threadName("callers"));
    private final ThreadLocal<Trampoline> trampoline = ThreadLocal.withInitial(() -> new Trampoline(callers.register()));

    /**
     * The route of an op pushed from outside this engine's ops: hands it back to its blocked pusher when
     * ready. One offer per await: an op is offered (submitted) at most once, and only while its pusher
     * is in, or about to enter, {@link #await} for it; await consumes the offer, so the next op may use
     * the same hand-off.
     */
    private static final class Handoff implements OpRoute {
        /** The pusher's trampoline: the op is run on that thread, so its run needs no thread-local lookup. */
        final Trampoline pusher;
        private boolean runnable; // guarded by this, but for reset (see there)

        Handoff(Trampoline pusher) {
            this.pusher = pusher;
        }

        @Override
        public synchronized void submit(OpBlock op) {
            runnable = true;
            notifyAll();
        }

        /**
         * Ready for another push of a replay's block: its last push was offered and run, or never offered.
         * No lock: the block is retired and taken by the replaying thread alone, so no thread offers or
         * awaits this hand-off now; the op's registration publishes the write to whoever offers it next.
         */
        void reset() {
            runnable = false;
        }

        /** Blocks until offered, and consumes the offer; returns whether the thread was interrupted meanwhile. */
        synchronized boolean await() {
            boolean interrupted = false;
            while (!runnable) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    interrupted = true; // a push cannot be abandoned half-way: finish it, keep the status
                }
            }
            runnable = false;
            return interrupted;
        }
    }

    NaiveEngine(EngineConfig config) {
        super(NaiveEngineProvider.NAME, config);
    }

    /**
     * Routes an op pushed from outside this engine's ops back to its pusher. A plain push uses the
     * pushing thread's hand-off: the push returns only once its op is finished, so the thread has one
     * such op outstanding at a time. The ops of a replay are all registered before the first is
     * awaited, so each gets a hand-off of its own.
     */
    @Override
    protected void prepare(OpBlock op, EngineDevice slot) {
        if (op.def().kind() != OpDef.Kind.WAIT && !insideOwnOp()) {
            Trampoline here = trampoline.get();
            op.setRoute(op.replayOf() == null ? here.handoff : new Handoff(here));
        }
    }

    /**
     * A replay's block pushed again recycles its hand-off, which its last push was done with, if the same
     * thread replays it (the hand-off runs the op on its pusher's trampoline); else it gets a new one.
     */
    @Override
    protected void prepareAgain(OpBlock op, EngineDevice slot, OpRoute previous, boolean fromOwnOp) {
        if (previous instanceof Handoff h && !fromOwnOp && h.pusher.owner == Thread.currentThread()) {
            h.reset();
            op.setRoute(h);
        } else {
            prepare(op, slot);
        }
    }

    /**
     * Runs a ready op: on its pusher's thread when that is the calling thread (the push itself, or a run
     * in progress there, whose trampoline queues it: a replay's ops released by the ops before them),
     * else hands it to its blocked pusher, or runs it where it was released if it has no pusher to go to.
     */
    @Override
    protected void execute(OpBlock op, boolean pusherThread) {
        callers.ready(op.id());
        OpRoute r = op.route();
        if (r instanceof Handoff h && (pusherThread || (h.pusher.owner == Thread.currentThread() && h.pusher.running))) {
            runBounded(op, h.pusher); // the pusher thread is the route's
        } else if (pusherThread || r == null) {
            runBounded(op, trampoline.get());
        } else {
            r.submit(op);
        }
    }

    /**
     * Runs {@code op} here, or, inside another run on this thread, queues it to run when that returns
     * ({@code here}: the calling thread's trampoline).
     */
    private void runBounded(OpBlock op, Trampoline here) {
        ArrayDeque<OpBlock> queued = here.queued;
        if (here.running) {
            queued.add(op);
            here.caller.queued(1);
            return;
        }
        here.running = true;
        here.caller.running(true);
        try {
            runCounted(op, here);
            OpBlock next;
            while ((next = queued.poll()) != null) {
                here.caller.queued(-1);
                runCounted(next, here);
            }
        } finally {
            try {
                // Only if a run ended in an Error (run never throws otherwise): the queued ops still run,
                // so none is left pending forever.
                OpBlock next;
                while ((next = queued.poll()) != null) {
                    here.caller.queued(-1);
                    try {
                        runCounted(next, here);
                    } catch (Throwable again) {
                        // keep draining; the first error is on its way out
                    }
                }
            } finally {
                here.running = false;
                here.caller.running(false);
            }
        }
    }

    /** Runs {@code op} here, counted (and timed, if sampled) in this thread's metrics. */
    private void runCounted(OpBlock op, Trampoline here) {
        long id = op.id(); // read before the run: a replay's block may be reused once it finishes
        long start = here.caller.starting(id);
        run(op, null);
        here.caller.ran(id, start);
    }

    @Override
    protected void afterPush(OpBlock op) {
        if (!(op.route() instanceof Handoff h)) {
            return; // a wait, or pushed from inside an op of this engine: it runs where it is released
        }
        boolean interrupted = false;
        if (!op.isStarted()) {
            interrupted = h.await();
            runBounded(op, h.pusher); // afterPush runs on the pusher thread
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
