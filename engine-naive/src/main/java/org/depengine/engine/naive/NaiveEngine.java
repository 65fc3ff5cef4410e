package org.depengine.engine.naive;

import java.util.ArrayDeque;
import org.depengine.api.spi.EngineConfig;
import org.depengine.core.AbstractEngine;
import org.depengine.core.DispatchPolicy;
import org.depengine.core.EngineRuntime;
import org.depengine.core.device.EngineDevice;
import org.depengine.core.exec.CallerThreads;
import org.depengine.core.exec.CurrentOp;
import org.depengine.core.exec.EngineThread;
import org.depengine.core.tracker.OpBlock;
import org.depengine.core.tracker.OpDef;
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
    NaiveEngine(EngineConfig config) {
        super(NaiveEngineProvider.NAME, config, Policy::new);
    }

    /** Where a naive engine's ready op runs: on its pusher (see the class comment). */
    private static final class Policy implements DispatchPolicy {
        private final EngineRuntime runtime;
        /** The metrics group of the pushing threads, which run the ops (EngineMetrics). */
        private final CallerThreads callers;
        private final ThreadLocal<Trampoline> trampoline;
        // The trampoline looked up last, so that a thread pushing op after op (or a replay's ops) skips
        // the thread-local lookup. Written and read without synchronization: a thread uses what it reads
        // only if it made it itself (its owner), and a trampoline's final fields are safely published.
        private Trampoline last;

        Policy(EngineRuntime runtime) {
            this.runtime = runtime;
            this.callers = new CallerThreads(runtime.engine(), runtime.threadName("callers"));
            this.trampoline = ThreadLocal.withInitial(() -> new Trampoline(callers.register()));
        }

        /**
         * An op pushed from outside this engine's ops goes back to its pusher, which waits for it in
         * {@link #pushed}: its route is the pushing thread's trampoline, and the pusher is its awaiter.
         */
        @Override
        public void route(OpBlock op, EngineDevice device) {
            if (op.def().kind() == OpDef.Kind.WAIT) {
                return;
            }
            Trampoline t = here();
            if (!t.insideOpOf(runtime.engine())) {
                op.setRoute(t);
                op.expectWaiter();
            }
        }

        /**
         * Runs a ready op: on its pusher's thread when that is the calling thread (the push itself, or a
         * run in progress there, whose trampoline queues it: a replay's ops released by the ops before
         * them), else hands it to its blocked pusher, or runs it where it was released if it has no
         * pusher to go to.
         */
        @Override
        public void dispatch(OpBlock op, boolean onPusher) {
            callers.ready(op.id());
            OpRoute r = op.route();
            if (r instanceof Trampoline t && (onPusher || (t.owner == Thread.currentThread() && t.running))) {
                runBounded(op, t); // the pusher thread is the route's
            } else if (onPusher || r == null) {
                runBounded(op, here());
            } else {
                r.submit(op);
            }
        }

        /**
         * The push returns once its op is finished: until the op has started, the pusher runs what is
         * handed back to it (its op, or another op of the replay it is pushing), then waits for the op's
         * completion (an async op's callback).
         */
        @Override
        public void pushed(OpBlock op) {
            if (!(op.route() instanceof Trampoline t)) {
                return; // a wait, or pushed from inside an op of this engine: it runs where it is released
            }
            boolean interrupted = false;
            while (!op.isStarted()) { // only this thread starts it: it is routed back here
                OpBlock handed;
                while ((handed = t.poll()) == null) {
                    interrupted |= t.awaitHandOff();
                }
                runBounded(handed, t);
            }
            while (true) {
                try {
                    op.awaitFinished(Long.MAX_VALUE);
                    break;
                } catch (InterruptedException e) {
                    interrupted = true; // a push cannot be abandoned half-way: finish it, keep the status
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public boolean runsOnPusher() {
            return true;
        }

        /** The calling thread's trampoline. */
        private Trampoline here() {
            Trampoline t = last;
            if (t == null || t.owner != Thread.currentThread()) {
                t = trampoline.get();
                last = t;
            }
            return t;
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
            int ops = op.def().ops(); // a replay run as one op runs that many
            CallerThreads.Caller caller = here.caller;
            if (!caller.timed(id)) {
                runtime.run(op, null, here.currentOp);
                caller.ran(ops);
            } else {
                long start = caller.started(id);
                runtime.run(op, null, here.currentOp);
                caller.ranTimed(start, ops);
            }
        }
    }

    /**
     * One thread's state in one naive engine: whether a run is in progress and the ops waiting for it
     * to return (that thread's only), and the ops other threads handed back to it (the route of the ops
     * it pushes: an op is handed back at most once, when it becomes ready on another thread while its
     * pusher waits in {@link Policy#pushed}).
     */
    private static final class Trampoline implements OpRoute {
        final Thread owner = Thread.currentThread(); // made by ThreadLocal.withInitial on its own thread
        // The thread's current-op holder (null on an engine thread, which keeps its op itself): looked up
        // once here instead of once per op.
        final OpBlock[] currentOp = owner instanceof EngineThread ? null : CurrentOp.otherThreadHolder();
        boolean running;
        final ArrayDeque<OpBlock> queued = new ArrayDeque<>();
        private final ArrayDeque<OpBlock> handedBack = new ArrayDeque<>(); // guarded by this
        final CallerThreads.Caller caller; // this thread's counts for the engine's metrics

        Trampoline(CallerThreads.Caller caller) {
            this.caller = caller;
        }

        /** Whether the owner thread is running an op of {@code engine} right now (a nested push). */
        boolean insideOpOf(Object engine) {
            OpBlock cur = currentOp != null ? currentOp[0] : ((EngineThread) owner).currentOp;
            return cur != null && cur.def().owner() == engine;
        }

        @Override
        public synchronized void submit(OpBlock op) {
            handedBack.add(op);
            notifyAll();
        }

        synchronized OpBlock poll() {
            return handedBack.poll();
        }

        /** Waits for an op to be handed back; returns whether the thread was interrupted meanwhile. */
        synchronized boolean awaitHandOff() {
            if (!handedBack.isEmpty()) {
                return false;
            }
            try {
                wait();
                return false;
            } catch (InterruptedException e) {
                return true;
            }
        }
    }
}
