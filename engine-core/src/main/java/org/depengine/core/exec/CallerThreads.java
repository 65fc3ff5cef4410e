package org.depengine.core.exec;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Iterator;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The metrics group of an engine that runs ops on the threads that push them (naive): each such thread
 * has a {@link Caller}, which counts the ops it runs and the ops queued on it in fields of its own. A
 * thread's caller is registered once, on its first push; callers of threads that have died are folded
 * into one count at the next registration, so a program that pushes from short-lived threads keeps no
 * more than its live threads here.
 */
public final class CallerThreads extends MeteredGroup {
    /** One pushing thread's counts, written by that thread only (opaque stores), read by any. */
    public static final class Caller {
        private static final VarHandle RUNNING;
        private static final VarHandle COMPLETED;
        private static final VarHandle QUEUED;

        static {
            try {
                MethodHandles.Lookup l = MethodHandles.lookup();
                RUNNING = l.findVarHandle(Caller.class, "running", boolean.class);
                COMPLETED = l.findVarHandle(Caller.class, "completed", long.class);
                QUEUED = l.findVarHandle(Caller.class, "queued", int.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private final Thread owner = Thread.currentThread();
        private final OpTimings timings;
        private boolean running;
        private long completed;
        private int queued;

        private Caller(OpTimings timings) {
            this.timings = timings;
        }

        /** This thread starts (true) or ends (false) a run of ops. */
        public void running(boolean now) {
            RUNNING.setOpaque(this, now);
        }

        /** An op was queued on this thread (+1) to run when its current run returns, or taken from there (-1). */
        public void queued(int delta) {
            QUEUED.setOpaque(this, queued + delta);
        }

        /** Whether the op of this id is timed: then {@link #started} and {@link #ranTimed}, else {@link #ran}. */
        public boolean timed(long id) {
            return timings.timed(id);
        }

        /** A timed op of this id starts to run now: returns the time to give {@link #ranTimed}. */
        public long started(long id) {
            long start = System.nanoTime();
            timings.started(id, start);
            return start;
        }

        /** An op that is not timed, standing for {@code ops} ops ({@code OpDef.ops()}), ran here: counts them. */
        public void ran(int ops) {
            COMPLETED.setOpaque(this, completed + ops);
        }

        /**
         * A timed op, started at {@code start} ({@link #started}) and standing for {@code ops} ops, ran on
         * this thread: counts them.
         */
        public void ranTimed(long start, int ops) {
            COMPLETED.setOpaque(this, completed + ops); // first: a group never shows more ops timed than run
            timings.ran(System.nanoTime() - start, ops);
        }
    }

    private final ConcurrentLinkedQueue<Caller> callers = new ConcurrentLinkedQueue<>();
    private final AtomicLong completedByDeadThreads = new AtomicLong();

    /**
     * @param engine the engine, whose counters (if it keeps them) this group registers with
     * @param name the group's name
     */
    public CallerThreads(Object engine, String name) {
        super(engine, name);
        registerWithEngine();
    }

    /** The calling thread's caller, new: call once per thread (the engine keeps it in a thread-local). */
    public Caller register() {
        for (Iterator<Caller> it = callers.iterator(); it.hasNext(); ) {
            Caller c = it.next();
            if (!c.owner.isAlive() && callers.remove(c)) {
                completedByDeadThreads.addAndGet((long) Caller.COMPLETED.getOpaque(c));
            }
        }
        Caller c = new Caller(timings);
        callers.add(c);
        return c;
    }

    /** A timed op was made ready now, to run on its pusher's thread. */
    public void ready(long id) {
        if (timings.timed(id)) {
            timings.handed(id);
        }
    }

    @Override
    public int threads() {
        int n = 0;
        for (Caller c : callers) {
            n += c.owner.isAlive() ? 1 : 0;
        }
        return n;
    }

    @Override
    public int active() {
        int n = 0;
        for (Caller c : callers) {
            n += (boolean) Caller.RUNNING.getOpaque(c) ? 1 : 0;
        }
        return n;
    }

    @Override
    public long queued() {
        long n = 0;
        for (Caller c : callers) {
            n += (int) Caller.QUEUED.getOpaque(c);
        }
        return n;
    }

    @Override
    public long completed() {
        // A caller folded in between the two reads is briefly counted in neither (never twice): exact once quiet.
        long n = completedByDeadThreads.get();
        for (Caller c : callers) {
            n += (long) Caller.COMPLETED.getOpaque(c);
        }
        return n;
    }
}
