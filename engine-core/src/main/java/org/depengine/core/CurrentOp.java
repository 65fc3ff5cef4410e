package org.depengine.core;

import org.depengine.core.exec.EngineThread;
import org.depengine.core.tracker.OpBlock;

/**
 * Which op the calling thread is running: kept in the {@link EngineThread} itself on an engine's
 * threads (a field read), in a thread-local elsewhere (pushers running ops inline). Used to refuse
 * calls that would block an op on itself, and to tell nested pushes.
 */
final class CurrentOp {
    /** The op running on a thread that is not an {@link EngineThread}. */
    private static final ThreadLocal<OpBlock> OTHER_THREADS = new ThreadLocal<>();

    private CurrentOp() {
    }

    /** The op the calling thread is running, or null. */
    static OpBlock get() {
        Thread t = Thread.currentThread();
        return t instanceof EngineThread ? ((EngineThread) t).currentOp : OTHER_THREADS.get();
    }

    /** Whether the calling thread is running an op of {@code engine}. */
    static boolean ownedBy(AbstractEngine engine) {
        OpBlock cur = get();
        return cur != null && cur.def().owner() == engine;
    }

    /** Sets the calling thread's op ({@code et}: the calling thread if it is an engine thread, else null). */
    static void set(EngineThread et, OpBlock op) {
        if (et != null) {
            et.currentOp = op;
        } else {
            // set(null), not remove(): the thread's entry stays, so the next get() allocates none (a
            // pusher running its ops inline sets and clears it once per op). The value is cleared.
            OTHER_THREADS.set(op);
        }
    }

    /**
     * Refuses a blocking call ({@code what}) made inside an op of {@code engine} or on one of its threads.
     *
     * @throws IllegalStateException naming the op or thread and what to do instead
     */
    static void refuseBlockingCall(AbstractEngine engine, String what) {
        if (ownedBy(engine)) {
            OpBlock cur = get();
            throw new IllegalStateException(what + " was called from inside op '" + cur.name() + "' of engine '" + engine.name()
                    + "': the op would wait for itself or for the worker it occupies. Push a dependent op instead "
                    + "(list the variable in its constVars), or wait outside ops");
        }
        Thread t = Thread.currentThread();
        if (t instanceof EngineThread && ((EngineThread) t).engine() == engine) {
            throw new IllegalStateException(what + " was called on worker thread " + t.getName() + " of engine '" + engine.name()
                    + "': a worker that blocks can deadlock the engine. Push a dependent op instead");
        }
    }
}
