package org.depengine.core.exec;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Comparator;
import java.util.Map;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;
import java.util.function.IntFunction;
import org.depengine.api.EngineMetrics;
import org.depengine.api.device.Stream;
import org.depengine.core.tracker.OpBlock;
import org.depengine.core.tracker.OpRoute;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A queue of ready ops and the worker threads that own it (MXNet's worker block). Ops are taken in
 * FIFO order, or, for a priority group, highest priority first and push order among equals.
 *
 * <p>{@link #submit} may be called from any thread. When a worker of this group submits while it is
 * running an op (the op it finished released a successor), the first such successor is kept in the
 * worker's own slot and run next on the same thread: no queue round trip and no wake-up, so a chain of
 * dependent ops does not pay a park/unpark per link. In a priority group the kept successor runs next
 * only if no queued op outranks it (see {@link Worker#runChain}).
 *
 * <p>A group's ops run only on its own workers. (Letting an engine's stream-less groups run each
 * other's released successors and share one spinner was tried, and measured slower on 2 cores:
 * benchmarks/RESULTS.md, "Worker wake-ups".)
 *
 * <p>A worker whose stream cannot be opened (its device plugin failed) stays up and hands every op it
 * takes to the engine's refusal, which fails it naming the plugin's offence: no op is left queued
 * behind a dead worker.
 *
 * <p><b>Sharing the cores with the pusher.</b> The pushing thread and the workers usually share few
 * cores (2 on the machines measured). Three rules keep the group from flipping between a fast mode
 * (a worker awake when the next op arrives) and a slow one (every op paying a park/unpark, ~20 µs):
 * <ul>
 *   <li><b>At most one spinner.</b> An idle worker spins for new ops only if no other worker of the
 *   group is spinning; the others park at once. One spinner catches the next op
 *   without a wake-up, and the pusher keeps the other core. The spinner busy-spins ({@link Thread#onSpinWait}) for
 *   {@value #BUSY_SPIN_NANOS} ns, then spins with {@link Thread#yield} (giving the core to the pusher
 *   when threads outnumber cores) up to {@value #SPIN_NANOS} ns, then parks.</li>
 *   <li><b>Waking policy.</b> A submit wakes at most one parked worker, and none while a worker is
 *   spinning: the spinner takes the op. A worker stops counting as the spinner as soon as it takes an
 *   op; an idle worker that takes an op and leaves more queued wakes a parked worker, so the next ops
 *   do not wait for it to finish.</li>
 *   <li><b>Hand-off to the releasing worker.</b> A successor released by the op a worker just ran runs
 *   next on that worker (above), without a queue round trip or a wake-up.</li>
 * </ul>
 * An idle group burns no CPU once its spinner has parked.
 *
 * <p><b>Metrics</b> ({@link EngineMetrics.Group}): each worker counts the ops it runs in a field of its
 * own and says whether it is running a chain; one op in the engine's sampling interval is timed
 * ({@link OpTimings}), stamped when submitted and timed around its run. A group made for an engine that
 * keeps counters ({@link EngineCounters.Owner}) registers with them; its name ({@link #name()}) is its threads' name prefix.
 */
public final class WorkerGroup extends MeteredGroup implements OpRoute {
    /*
     * Parking protocol (no lost wake-ups). A worker about to park gives up the spinner role (if it had
     * it), increments parkedCount, then sets its parked flag, then polls the queue once more before
     * parking. A submitter offers to the queue, then reads spinners and, if zero, parkedCount; if
     * positive it clears some worker's parked flag by CAS and unparks it. Whoever clears a parked flag
     * decrements parkedCount, after the CAS, so parkedCount is never below the number of flagged
     * workers: a submitter that reads zero knows no worker is parked for good. (Flagging first let a
     * waker's decrement run ahead of the woken worker's increment: a submit then read zero while another
     * worker was parked and woke nobody, so its op waited for the woken one.) Both sides write then read
     * volatile state, so either the worker's re-poll sees the op, or the submitter sees the spinner
     * (which polls again before it parks) or the parked worker.
     *
     * A submit wakes at most one worker, and none while one spins or one is about to park; and its
     * wake-up may go to a worker that is about to park and finds an op in its last poll anyway. So ops
     * submitted together could wait for one worker while others stay parked: a worker that was idle and
     * takes an op wakes another if ops are still queued and one is parked (took()). Each op taken passes
     * one wake-up on, until the queue is empty or no worker is parked.
     */
    private static final Logger LOG = LoggerFactory.getLogger(WorkerGroup.class);

    // An idle worker first busy-spins briefly, then spins with Thread.yield(), then parks. Yielding
    // matters when threads outnumber cores (the pusher plus a worker per core): a busy-spinning idle
    // worker would take the core the pusher needs to produce its next op. Measured with the JMH suite
    // on 2 cores: yielding halved RandomDag's per-op time against busy-spinning for 20 µs.
    private static final long SPIN_NANOS = 50_000;
    private static final long BUSY_SPIN_NANOS = 2_000;
    private static final int LOCAL_RUN_BUDGET = 128;    // local successors run in a row before yielding to the queue
    private static final Comparator<OpBlock> BY_PRIORITY =
            Comparator.comparingInt(OpBlock::priority).reversed().thenComparingLong(OpBlock::id);

    private final Queue<OpBlock> queue;
    private final Worker[] workers;
    // The spinner count (0 or 1: the worker spinning for new ops) and the parked count, read by every
    // submit: on one cache line of their own, 64 bytes from either end of the array, so that the queue's
    // head and tail (written by every poll and offer) and the objects allocated next to the group do
    // not share it.
    private static final int SPINNERS = 16;
    private static final int PARKED_COUNT = 17;
    private final AtomicIntegerArray counts = new AtomicIntegerArray(2 * SPINNERS + 2);
    private final OpRunner runner;
    private final boolean byPriority;
    private final BiConsumer<OpBlock, Throwable> refuse;
    private final AtomicLong wakeUps = new AtomicLong(); // counted where a wake-up is paid anyway
    private volatile boolean stopping;

    /**
     * Creates and starts a group whose workers own no stream (ops run on their device's shared stream).
     *
     * @param engine the owning engine (for {@link EngineThread#engine()})
     * @param threadNamePrefix workers are named prefix + "-" + (1..threads)
     * @param threads the number of workers, at least 1
     * @param priority whether ops are taken by priority (else FIFO)
     * @param runner runs an op
     */
    public WorkerGroup(Object engine, String threadNamePrefix, int threads, boolean priority, OpRunner runner) {
        this(engine, threadNamePrefix, threads, priority, runner, null, null);
    }

    /**
     * Creates and starts the group, its workers owning streams.
     *
     * @param streams makes worker i's own stream, bound to the calling worker thread; may throw (the
     *     device refused), in which case the worker hands each op it takes to {@code refuse}
     * @param refuse fails an op that cannot run for want of a stream (never throws); required with
     *     {@code streams}
     * @see #WorkerGroup(Object, String, int, boolean, OpRunner)
     */
    public WorkerGroup(Object engine, String threadNamePrefix, int threads, boolean priority, OpRunner runner,
                       IntFunction<Stream> streams, BiConsumer<OpBlock, Throwable> refuse) {
        super(engine, threadNamePrefix);
        if (streams != null && refuse == null) {
            throw new IllegalArgumentException("a worker group with streams needs a refusal for ops without one: "
                    + threadNamePrefix);
        }
        if (threads < 1) {
            throw new IllegalArgumentException("a worker group needs at least one thread: " + threadNamePrefix);
        }
        this.queue = priority ? new PriorityBlockingQueue<>(64, BY_PRIORITY) : new ConcurrentLinkedQueue<>();
        this.runner = runner;
        this.byPriority = priority;
        this.refuse = refuse;
        this.workers = new Worker[threads];
        for (int i = 0; i < threads; i++) {
            workers[i] = new Worker(engine, threadNamePrefix + "-" + (i + 1), i, streams);
        }
        for (Worker w : workers) {
            w.start();
        }
        registerWithEngine(); // before this group is returned, so before it runs any op
    }

    /** The number of worker threads. */
    public int size() {
        return workers.length;
    }

    @Override
    public int threads() {
        return workers.length;
    }

    @Override
    public int active() {
        int n = 0;
        for (Worker w : workers) {
            if ((boolean) Worker.RUNNING.getOpaque(w)) {
                n++;
            }
        }
        return n;
    }

    /** The queue's length: O(1) for a priority group, a walk of the queue for a FIFO one. */
    @Override
    public long queued() {
        return queue.size();
    }

    @Override
    public long completed() {
        long n = 0;
        for (Worker w : workers) {
            n += (long) Worker.COMPLETED.getOpaque(w);
        }
        return n;
    }

    /**
     * Parked workers woken by a submit or by a worker passing a wake-up on, since the group started
     * (exact once the group is quiet).
     */
    public long wakeUps() {
        return wakeUps.get();
    }

    /**
     * Successors this group's workers ran from their own slot since the group started (the hand-off
     * of the class comment), summed over the workers; exact once the group is quiet (each worker
     * counts before it runs the op).
     */
    public long handOffs() {
        long n = 0;
        for (Worker w : workers) {
            n += (long) Worker.HAND_OFFS.getOpaque(w);
        }
        return n;
    }

    /**
     * Adds the groups' scheduling counters to an engine's diagnostics counters: {@code wakeUps} and
     * {@code handOffs} (successors run by the worker that released them), each summed over
     * {@code groups}.
     */
    public static void addCounters(Iterable<WorkerGroup> groups, Map<String, Long> counters) {
        long wakes = 0;
        long handOffs = 0;
        for (WorkerGroup g : groups) {
            wakes += g.wakeUps();
            handOffs += g.handOffs();
        }
        counters.put("wakeUps", wakes);
        counters.put("handOffs", handOffs);
    }

    /** Hands a ready op to the group. */
    @Override
    public void submit(OpBlock op) {
        if (timings.timed(op.id())) {
            timings.handed(op.id());
        }
        if (Thread.currentThread() instanceof Worker w && w.running && w.next == null && w.group() == this) {
            w.next = op;
            return;
        }
        queue.offer(op);
        if (counts.get(SPINNERS) == 0 && counts.get(PARKED_COUNT) > 0) {
            wakeOne(); // the spinner, if any, takes it: no wake-up needed
        }
    }

    /**
     * Whether, in a priority group, a queued op should run before {@code op} (higher priority, or equal
     * and pushed earlier); false in a FIFO group without looking (one final-field read).
     */
    private boolean outranks(OpBlock op) {
        if (!byPriority) {
            return false;
        }
        OpBlock head = queue.peek();
        return head != null && (head.priority() > op.priority()
                || (head.priority() == op.priority() && head.id() < op.id()));
    }

    private void wakeOne() {
        for (Worker w : workers) {
            if (w.parked && Worker.PARKED.compareAndSet(w, true, false)) {
                counts.decrementAndGet(PARKED_COUNT);
                wakeUps.incrementAndGet();
                LockSupport.unpark(w);
                return;
            }
        }
    }

    /**
     * Stops the workers once the queue is empty and joins them. Ops still queued are run first; the
     * caller has normally drained the engine already.
     *
     * @return true if every worker ended within the timeout
     */
    public boolean shutdown(long timeoutMillis) {
        stopping = true;
        for (Worker w : workers) {
            LockSupport.unpark(w);
        }
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        boolean all = true;
        for (Worker w : workers) {
            if (w == Thread.currentThread()) {
                continue;
            }
            long left = Math.max(1, (deadline - System.nanoTime()) / 1_000_000L);
            try {
                w.join(left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
            if (w.isAlive()) {
                LOG.warn("worker {} did not stop within {} ms", w.getName(), timeoutMillis);
                all = false;
            }
        }
        return all;
    }

    private final class Worker extends EngineThread {
        static final VarHandle PARKED;
        static final VarHandle HAND_OFFS;
        static final VarHandle COMPLETED;
        static final VarHandle RUNNING;

        static {
            try {
                MethodHandles.Lookup l = MethodHandles.lookup();
                PARKED = l.findVarHandle(Worker.class, "parked", boolean.class);
                HAND_OFFS = l.findVarHandle(Worker.class, "handOffs", long.class);
                COMPLETED = l.findVarHandle(Worker.class, "completed", long.class);
                RUNNING = l.findVarHandle(Worker.class, "running", boolean.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private final int index;
        private final IntFunction<Stream> streams;
        volatile boolean parked;
        // Written by this thread only, with opaque stores where another thread reads it (active()).
        boolean running;
        OpBlock next;     // this thread only: a successor to run right after the current op
        // Written by this thread only (opaque stores, so handOffs() and completed() never read a torn value).
        long handOffs;
        long completed;

        Worker(Object engine, String name, int index, IntFunction<Stream> streams) {
            super(engine, name);
            this.index = index;
            this.streams = streams;
        }

        WorkerGroup group() {
            return WorkerGroup.this;
        }

        @Override
        public void run() {
            Stream stream = null;
            Throwable noStream = null;
            try {
                if (streams != null) {
                    try {
                        stream = streams.apply(index);
                    } catch (Throwable t) {
                        // The device refused: stay up and fail what comes, rather than strand it in the queue.
                        noStream = t;
                        LOG.warn("worker {} has no stream; the ops it takes fail: {}", getName(), t.toString());
                    }
                }
                OpBlock op;
                while ((op = take()) != null) {
                    if (noStream != null) {
                        int ops = op.def().ops();
                        refuse.accept(op, noStream);
                        Thread.interrupted();
                        COMPLETED.setOpaque(this, completed + ops);
                    } else {
                        runChain(op, stream);
                    }
                    // A worker parked in take() must not keep its last op (and its failure, its closure)
                    // reachable: an interpreted frame's stale local is a GC root.
                    op = null;
                }
            } catch (Throwable t) {
                // Runner failures are contained per op; reaching here is an engine bug.
                LOG.error("worker {} stopped by an unexpected error", getName(), t);
            } finally {
                if (stream != null) {
                    try {
                        stream.close();
                    } catch (Throwable e) {
                        LOG.warn("closing the stream of worker {} failed", getName(), e);
                    }
                }
            }
        }

        /** Runs {@code op}, then the successors it keeps handing this worker ({@link #next}). */
        private void runChain(OpBlock op, Stream stream) {
            int budget = LOCAL_RUN_BUDGET;
            RUNNING.setOpaque(this, true);
            try {
                while (true) {
                    run(op, stream);
                    // An op may leave its thread interrupted: like a thread pool, do not pass that on to
                    // the next op (its first blocking call would fail) nor to park() (which would return
                    // at once, so the idle worker would spin). The engine never interrupts its workers.
                    Thread.interrupted();
                    op = next;
                    next = null;
                    if (op == null) {
                        return;
                    }
                    // The kept successor skips the queue only if nothing queued there outranks it.
                    // Checked here, when it would run, not at hand-off: ops released after it by the
                    // same op are queued by then. Priority groups compare with the queue's head: O(1),
                    // no allocation.
                    if (outranks(op) || --budget == 0) {
                        RUNNING.setOpaque(this, false);
                        submit(op); // queued (running is false): queued ops have a turn
                        return;
                    }
                    HAND_OFFS.setOpaque(this, handOffs + 1);
                }
            } finally {
                RUNNING.setOpaque(this, false);
            }
        }

        /** Runs one op, counting it, and timing it if it is one of the sampled ones. */
        private void run(OpBlock op, Stream stream) {
            long id = op.id(); // read before the run: a replay's block may be reused once it finishes
            int ops = op.def().ops(); // a replay run as one op runs that many
            if (!timings.timed(id)) {
                runner.run(op, stream);
                COMPLETED.setOpaque(this, completed + ops);
            } else {
                long start = System.nanoTime();
                timings.started(id, start);
                runner.run(op, stream);
                COMPLETED.setOpaque(this, completed + ops); // first: a group never shows more ops timed than run
                timings.ran(System.nanoTime() - start, ops);
            }
        }

        private OpBlock take() {
            boolean idled = false; // whether this worker spun or parked before the op it takes
            while (true) {
                OpBlock op = queue.poll();
                if (op != null) {
                    return idled ? took(op) : op;
                }
                if (stopping) {
                    return null;
                }
                if (counts.get(SPINNERS) == 0 && counts.compareAndSet(SPINNERS, 0, 1)) {
                    op = spin();
                    counts.decrementAndGet(SPINNERS);
                    idled = true;
                    if (op != null) {
                        return took(op);
                    }
                    if (stopping) {
                        return null;
                    }
                }
                // Counted, then flagged: the count never falls below the flagged workers (the protocol above).
                counts.incrementAndGet(PARKED_COUNT);
                parked = true;
                op = queue.poll();
                if (op == null && !stopping) {
                    LockSupport.park(this);
                }
                if (PARKED.compareAndSet(this, true, false)) {
                    counts.decrementAndGet(PARKED_COUNT);
                }
                if (op != null) {
                    return took(op);
                }
                idled = true;
            }
        }

        /**
         * {@code op} was taken by a worker that was idle (spinning, or parked or about to park): if more
         * are queued and a worker is parked, wakes one, passing on the wake-ups that submits left to
         * this worker (the protocol above). A worker that takes its next op straight after a run wakes
         * nobody: the ops queued meanwhile found the parked workers themselves.
         */
        private OpBlock took(OpBlock op) {
            if (counts.get(PARKED_COUNT) > 0 && !queue.isEmpty()) {
                wakeOne();
            }
            return op;
        }

        /** As the group's one spinner: polls for up to SPIN_NANOS; null if nothing came (or stopping). */
        private OpBlock spin() {
            long start = System.nanoTime();
            while (true) {
                OpBlock op = queue.poll();
                if (op != null || stopping) {
                    return op;
                }
                long spent = System.nanoTime() - start;
                if (spent >= SPIN_NANOS) {
                    return null;
                }
                if (spent < BUSY_SPIN_NANOS) {
                    Thread.onSpinWait();
                } else {
                    Thread.yield();
                }
            }
        }
    }
}
