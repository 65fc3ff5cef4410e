package org.depengine.api;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A snapshot of what an engine is doing, for finding out why a wait does not return: the ops pushed
 * and not yet done, what each is waiting for and who holds it, the threads blocked in waits, and the
 * engine's counters. Made by {@link Engine#diagnostics()}; the hang doctor logs the same report when a
 * wait takes longer than {@code depengine.hangDoctorMs}.
 *
 * <p>The snapshot is taken while the engine runs, without stopping it: each variable and each op is
 * read consistently on its own, but the whole is not one atomic picture, and an op that finishes
 * while it is taken may be missing or listed in an older state. Immutable and thread-safe.
 */
public final class EngineDiagnostics {

    /** Where a pending op stands. */
    public enum OpState {
        /** Registered; still waiting for ops ahead of it on its variables. */
        WAITING,
        /** Its variables let it go, but it waits on the host for device work of a producer to finish. */
        DEFERRED,
        /** Ready; queued for a worker thread. */
        QUEUED,
        /** Its function is running on a thread. */
        RUNNING,
        /** Its {@link AsyncFn} returned without completing: the engine waits for the callback. */
        AWAITING_CALLBACK,
        /** Its device work is enqueued (launched) and not yet done. */
        ON_DEVICE
    }

    /**
     * One op pushed and not yet done.
     *
     * @param id the op's run id (push order within the engine)
     * @param name the op's name
     * @param context where it runs
     * @param property its property
     * @param state where it stands
     * @param thread the thread running it ({@link OpState#RUNNING}), else null
     * @param inFlightFor for {@link OpState#AWAITING_CALLBACK} and {@link OpState#ON_DEVICE}: how long
     *     since it left its thread; else null
     * @param blockedBy for {@link OpState#WAITING} and {@link OpState#DEFERRED}: what holds it back,
     *     one line per variable (e.g. {@code var 'x': write by op 'load' #12 (RUNNING)}); else empty
     */
    public record PendingOp(long id, String name, Context context, FnProperty property, OpState state,
                            String thread, Duration inFlightFor, List<String> blockedBy) {
        /**
         * Copies the list; checks the required fields.
         *
         * @param id the op's run id (push order within the engine)
         * @param name the op's name
         * @param context where it runs
         * @param property its property
         * @param state where it stands
         * @param thread the thread running it ({@link OpState#RUNNING}), else null
         * @param inFlightFor for {@link OpState#AWAITING_CALLBACK} and {@link OpState#ON_DEVICE}: how long since
         *     it left its thread; else null
         * @param blockedBy for {@link OpState#WAITING} and {@link OpState#DEFERRED}: what holds it back, one line
         *     per variable (e.g. {@code var 'x': write by op 'load' #12 (RUNNING)}); else empty
         */
        public PendingOp {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(state, "state");
            blockedBy = List.copyOf(blockedBy);
        }
    }

    /**
     * A thread blocked in a wait of the engine.
     *
     * @param thread the thread's name
     * @param call what it called, e.g. {@code waitForVar(var 'x')}
     * @param waitingFor how long it has been waiting
     */
    public record Waiter(String thread, String call, Duration waitingFor) {
    }

    private final String engine;
    private final Instant takenAt;
    private final long pendingOps;
    private final List<PendingOp> ops;
    private final List<Waiter> waiters;
    private final Map<String, Long> counters;

    /**
     * A snapshot.
     *
     * @param engine the engine's name
     * @param takenAt when the snapshot was taken
     * @param pendingOps the number of ops pushed and not yet done (may exceed {@code ops.size()}: ops
     *     that hold no variable and run nowhere yet are counted but not listed)
     * @param ops the pending ops found, in push order
     * @param waiters the threads blocked in waits
     * @param counters the engine's counters by name
     */
    public EngineDiagnostics(String engine, Instant takenAt, long pendingOps, List<PendingOp> ops,
                             List<Waiter> waiters, Map<String, Long> counters) {
        this.engine = Objects.requireNonNull(engine, "engine");
        this.takenAt = Objects.requireNonNull(takenAt, "takenAt");
        this.pendingOps = pendingOps;
        this.ops = List.copyOf(ops);
        this.waiters = List.copyOf(waiters);
        this.counters = Map.copyOf(counters);
    }

    /**
     * The engine's name.
     *
     * @return the engine's name
     */
    public String engine() {
        return engine;
    }

    /**
     * When the snapshot was taken.
     *
     * @return when the snapshot was taken
     */
    public Instant takenAt() {
        return takenAt;
    }

    /**
     * The number of ops pushed and not yet done.
     *
     * @return the number of ops pushed and not yet done
     */
    public long pendingOps() {
        return pendingOps;
    }

    /**
     * The pending ops found, in push order.
     *
     * @return the pending ops found, in push order
     */
    public List<PendingOp> ops() {
        return ops;
    }

    /**
     * The threads blocked in waits of the engine.
     *
     * @return the threads blocked in waits of the engine
     */
    public List<Waiter> waiters() {
        return waiters;
    }

    /**
     * The engine's counters, e.g. {@code launchedEarly} (device ops whose variables were released at
     * launch), {@code sameStreamStarts} (ops started behind a launched producer on the same stream, no
     * wait at all), {@code deviceWaits} (device-side waits between streams of one device: host blocks
     * avoided), {@code hostDeferrals} (ops held on the host until a producer's device work was done);
     * threaded engines add {@code wakeUps} (parked workers woken to take an op), {@code handOffs}
     * (successors run next by the worker that released them, no queue, no wake-up).
     *
     * @return the counters, by name
     */
    public Map<String, Long> counters() {
        return counters;
    }

    /**
     * The counter of that name, or 0.
     *
     * @param name the counter's name
     * @return the counter of that name, or 0
     */
    public long counter(String name) {
        return counters.getOrDefault(name, 0L);
    }

    /**
     * {@link #report(int)} listing at most 50 ops.
     *
     * @return the report
     */
    public String report() {
        return report(50);
    }

    /**
     * A human-readable multi-line report: one line per pending op (at most {@code maxOps}, oldest
     * first, then a count of the rest) and one per waiting thread.
     *
     * @param maxOps the most ops to list
     * @return the report
     */
    public String report(int maxOps) {
        StringBuilder b = new StringBuilder();
        b.append("engine '").append(engine).append("': ").append(pendingOps).append(" op(s) pending, ")
                .append(waiters.size()).append(" thread(s) waiting");
        int listed = 0;
        for (PendingOp op : ops) {
            if (listed++ == maxOps) {
                b.append("\n  ... and ").append(ops.size() - maxOps).append(" more op(s)");
                break;
            }
            b.append("\n  op '").append(op.name()).append("' #").append(op.id());
            if (op.context() != null) {
                b.append(" on ").append(op.context());
            }
            b.append(": ").append(op.state());
            if (op.thread() != null) {
                b.append(" on thread ").append(op.thread());
            }
            if (op.inFlightFor() != null) {
                b.append(" for ").append(millis(op.inFlightFor()));
            }
            if (op.state() == OpState.AWAITING_CALLBACK) {
                b.append(" (its AsyncFn returned; nothing has called complete() or fail() yet)");
            }
            for (String why : op.blockedBy()) {
                b.append("\n      waits for ").append(why);
            }
        }
        for (Waiter w : waiters) {
            b.append("\n  thread '").append(w.thread()).append("' in ").append(w.call()).append(" for ")
                    .append(millis(w.waitingFor()));
        }
        return b.toString();
    }

    private static String millis(Duration d) {
        return d.toMillis() + " ms";
    }

    @Override
    public String toString() {
        return report();
    }
}
