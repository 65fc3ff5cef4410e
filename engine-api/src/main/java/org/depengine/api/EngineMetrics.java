package org.depengine.api;

import java.util.List;
import java.util.function.Consumer;

/**
 * A live, read-only view of an engine's counters, for a monitoring system that scrapes them (the
 * {@code depengine-micrometer} module binds them to Micrometer's executor meters). Made by
 * {@link Engine#metrics()}; every read is cheap, thread-safe, never blocks the engine's work, and may be
 * made at any time, also after {@link Engine#close()} (the values then stay as they were).
 *
 * <p>What the engine pays for it: the counts are kept where the engine already writes (the op ids, a
 * worker's own fields, the failure and skip paths), so a push costs no extra shared write. The two
 * timings, an op's queue wait and its run time, are taken for one op in {@link #timingSampleInterval()}
 * (setting {@code depengine.metrics.timingSampleInterval}), chosen by a hash of the op's id, so that
 * ops repeated every step are not always, or never, the ones timed.
 *
 * <p>Every count is monotonic and exact once the engine is quiet; while ops run, two values read one
 * after the other may be of slightly different moments.
 */
public interface EngineMetrics {
    /**
     * Ops pushed to the engine and accepted (each registered op once: a replayed op, a variable's
     * deletion and a bulk's merged op each count as one; a push that was refused does not count; the
     * engine's own wait markers do not count).
     *
     * @return the number of ops pushed
     */
    long opsPushed();

    /**
     * Ops that failed themselves: their function threw, they called {@code fail}, their device reported
     * an error, or their device plugin could not run them. Ops skipped because of another op's failure
     * are {@link #opsSkipped()}.
     *
     * @return the number of ops that failed
     */
    long opsFailed();

    /**
     * Ops skipped instead of running: they read or wrote a variable whose last writer failed (the skip
     * rule), were pushed after {@code notifyShutdown()}, or their registration was refused.
     *
     * @return the number of ops skipped
     */
    long opsSkipped();

    /**
     * Ops pushed by replays of captured graphs ({@link Graph#replay()}), a subset of {@link #opsPushed()}.
     *
     * @return the number of replayed ops
     */
    long opsReplayed();

    /**
     * Ops pushed and not yet finished now ({@link EngineDiagnostics#pendingOps()} without the snapshot).
     *
     * @return the number of pending ops
     */
    long pendingOps();

    /**
     * Threads blocked in a wait of the engine now ({@link EngineDiagnostics#waiters()}'s size).
     *
     * @return the number of waiting threads
     */
    int waitingThreads();

    /**
     * One op in this many has its queue wait and run time taken ({@link Group#queueWait()},
     * {@link Group#runTime()}); 0 when timing is off.
     *
     * @return the sampling interval, a power of two, or 0
     */
    int timingSampleInterval();

    /**
     * The engine's worker groups made so far, in the order they were made. A threaded engine makes some
     * of them on first use of a device; {@link #addGroupListener} is told of each new one.
     *
     * @return the groups
     */
    List<Group> groups();

    /**
     * Tells {@code listener} of every group {@link #groups()} has now, on the calling thread, and of
     * each group the engine makes later, on the thread that makes it (a pusher, at its first push to a
     * new device), before that group runs its first op. The listener must return quickly and must not
     * push to or wait on the engine; what it throws is logged and otherwise ignored.
     *
     * @param listener told of each group
     */
    void addGroupListener(Consumer<? super Group> listener);

    /**
     * Stops telling {@code listener} of new groups; an unknown listener is ignored.
     *
     * @param listener a listener given to {@link #addGroupListener}
     */
    void removeGroupListener(Consumer<? super Group> listener);

    /**
     * The threads that run ops of one kind (MXNet's worker block): a queue and the threads that take
     * from it, named {@code depengine-<engine>-<role>}; or, for an engine that runs ops on the threads
     * that push them (naive), those threads.
     */
    interface Group {
        /**
         * The group's name, the prefix of its threads' names, e.g. {@code depengine-perdevice-cpu0-worker}.
         *
         * @return the name
         */
        String name();

        /**
         * The group's threads: its workers; for ops run on the pushing threads, the live threads that
         * have run an op of the engine.
         *
         * @return the number of threads
         */
        int threads();

        /**
         * Threads of the group running an op now.
         *
         * @return the number of active threads
         */
        int active();

        /**
         * Ready ops waiting in the group's queue now (for a FIFO group, counting takes time in the
         * queue's length).
         *
         * @return the number of queued ops
         */
        long queued();

        /**
         * Ops the group's threads have run (to completion, failure, skip or, for an async or device
         * op, until its function returned) since the group was made. A thread counts an op just after
         * running it, so the count lags the op's completion by that instant: read right after a wait
         * ({@code waitForAll}) it may miss each thread's last op.
         *
         * @return the number of ops run
         */
        long completed();

        /**
         * The time the timed ops ran on the group's threads: from their start to their function's
         * return (an async or device op's completion may come later).
         *
         * @return the run times of the timed ops
         */
        Timing runTime();

        /**
         * The time the timed ops waited between being handed to the group, ready, and starting to run.
         *
         * @return the queue waits of the timed ops
         */
        Timing queueWait();
    }

    /** A cumulative count and total of the timed ops' durations (a Micrometer {@code FunctionTimer}'s pair). */
    interface Timing {
        /**
         * The number of ops timed.
         *
         * @return the count
         */
        long count();

        /**
         * The sum of their durations.
         *
         * @return the total, in nanoseconds
         */
        long totalNanos();
    }
}
