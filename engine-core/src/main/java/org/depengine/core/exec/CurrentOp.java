package org.depengine.core.exec;

import org.depengine.core.tracker.OpBlock;

/**
 * Which op the calling thread is running: kept in the {@link EngineThread} itself on an engine's
 * threads (a field read), in a thread-local elsewhere (pushers running ops inline). Used to refuse
 * calls that would block an op on itself, and to tell nested pushes.
 */
public final class CurrentOp {
    /**
     * The op running on a thread that is not an {@link EngineThread}, in a one-element holder made once
     * per thread: setting and clearing it is a field write, not a thread-local update (a set and a
     * remove per op, whose map clean-up showed in the naive engine's push profile). Only the owning
     * thread touches its holder.
     */
    private static final ThreadLocal<OpBlock[]> OTHER_THREADS = ThreadLocal.withInitial(() -> new OpBlock[1]);

    private CurrentOp() {
    }

    /** The op the calling thread is running, or null. */
    public static OpBlock get() {
        Thread t = Thread.currentThread();
        return t instanceof EngineThread ? ((EngineThread) t).currentOp : OTHER_THREADS.get()[0];
    }

    /** Whether the calling thread is running an op of {@code engine}. */
    public static boolean ownedBy(Object engine) {
        OpBlock cur = get();
        return cur != null && cur.def().owner() == engine;
    }

    /**
     * The calling thread's holder of its current op, if it is not an engine thread (those keep it in
     * {@link EngineThread#currentOp}); read and write only element 0, only on the calling thread.
     */
    public static OpBlock[] otherThreadHolder() {
        return OTHER_THREADS.get();
    }

    /**
     * Refuses a blocking call ({@code what}) made inside an op of {@code engine} or on one of its threads.
     *
     * @throws IllegalStateException naming the op or thread and what to do instead
     */
    public static void refuseBlockingCall(Object engine, String engineName, String what) {
        if (ownedBy(engine)) {
            OpBlock cur = get();
            throw new IllegalStateException(what + " was called from inside op '" + cur.name() + "' of engine '" + engineName
                    + "': the op would wait for itself or for the worker it occupies. Push a dependent op instead "
                    + "(list the variable in its constVars), or wait outside ops");
        }
        Thread t = Thread.currentThread();
        if (t instanceof EngineThread && ((EngineThread) t).engine() == engine) {
            throw new IllegalStateException(what + " was called on worker thread " + t.getName() + " of engine '" + engineName
                    + "': a worker that blocks can deadlock the engine. Push a dependent op instead");
        }
    }
}
