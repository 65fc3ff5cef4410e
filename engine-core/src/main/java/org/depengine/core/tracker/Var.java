package org.depengine.core.tracker;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A variable and its dependency queue. Ops register on it in push order ({@link Registration}: a read
 * appends with {@code readLocked}, a write with {@code writeLocked}); when an op completes (or is
 * released at launch) it calls {@code completeRead} or {@code completeWrite}, which release the ops the
 * variable was holding back.
 *
 * <p>Thread-safety: all methods may be called from any thread. The appends of one op to all its
 * variables must happen as one step with respect to other ops' appends, or two concurrent pushes could
 * each hold a read the other's write waits for: {@link Registration} makes them one (usually by keeping
 * other multi-variable pushes out while the op appends to each variable under that variable's lock
 * alone; with several pushing threads, by holding all the op's locks at once, taken in the global order
 * of {@link #lockOrder()} when contended). Completions take one variable's lock at a time.
 */
public final class Var implements org.depengine.api.VarHandle {
    /*
     * Implementation overview.
     *
     * The state is a FIFO of ops not yet allowed to run, plus a count of running readers:
     *
     *   pendingWrite  the oldest write that has been appended and has not completed; null if none.
     *                 It heads the FIFO: pendingWrite -> (reads and writes appended after it) ... -> tail.
     *                 Reads are only ever queued behind a write, so the head is always a write.
     *   readers       >= 0: the number of reads that were released and have not completed.
     *                 WRITING (-1): pendingWrite itself has been released (is running).
     *
     *   lastWrite     the newest write in the FIFO (pendingWrite itself if it is the only one); each write's
     *                 node counts the reads queued right behind it (readsBehind) and points to the next
     *                 write (nextWrite), both kept by the appends.
     *
     * Invariants (under the lock):
     *   I1  pendingWrite == null  <=>  tail == null  <=>  lastWrite == null  (the FIFO is empty)
     *   I2  readers == WRITING    =>   pendingWrite != null and it has been released
     *   I3  pendingWrite != null and readers > 0  =>  those readers were released before pendingWrite
     *       was appended, and pendingWrite waits for them to drain
     *   I4  every op in the FIFO behind pendingWrite has not been released by this variable
     *
     * Transitions:
     *   readLocked:    FIFO empty  -> readers++, release the read now
     *                  otherwise   -> enqueue it (it waits for the writes ahead of it); lastWrite.readsBehind++
     *   writeLocked:   FIFO empty  -> it becomes pendingWrite and lastWrite; if readers == 0 release it
     *                                 (readers = WRITING)
     *                  otherwise   -> enqueue it; lastWrite.nextWrite = it; it becomes lastWrite
     *   completeRead:  readers--; at 0 with a pendingWrite waiting, release that write (readers = WRITING)
     *   completeWrite: version++; take the consecutive reads right behind the finished write out of
     *                  the FIFO and release them together (readers = their count: its readsBehind, the
     *                  next write its nextWrite, so the lock is held for O(1), not a walk of the reads);
     *                  the next write, if any, becomes pendingWrite and is released at once if no reads
     *                  came between; the FIFO empties if nothing follows.
     *
     * Releasing (counting down an op's latch, which may dispatch it) happens after the lock is
     * released: a detached run of nodes is walked outside the lock. Nodes leave the FIFO when released and
     * are never linked again, so nobody else writes their next pointers after detachment, except that
     * the tail's next is written by an append - and a detached run never contains the tail of the live
     * FIFO (the live FIFO either continues after it or was emptied, making the tail null). A node's next
     * pointer is cleared when it leaves the FIFO, so that a finished op (the first node of an op is the
     * op itself, see QueueNode) does not keep the ops queued after it reachable.
     *
     * Registration (see Registration, which decides which locks are held while): readLocked /
     * writeLocked append under this variable's lock and return whether the op may go at once; the op
     * drops all those grants and its push guard with one update of its latch afterwards.
     *
     * Failures: completeWrite attaches the writer's failure (its own, or one it took over when skipped)
     * to the variable before releasing the successors, so they see it when they start. Reported
     * failures are ignored (Failure.isActive).
     *
     * Deletion: deleted is set, under the lock, by the append of the deleting write; later appends
     * refuse, so nothing queues behind a deletion.
     *
     * Fences (release at launch, see FenceState): an op that completes its access at launch may still be
     * using the variable on a device. The variable remembers such ops until they complete, in a
     * VarFences made at the first one (guarded by the lock; null, one null check, with no device ops),
     * and hands each op it releases the fences that op must respect.
     */

    private static final int WRITING = -1;
    private static final VarHandle LOCK;
    private static final VarHandle VERSION;
    private static final VarHandle FAILURE;
    static final int SPINS_BEFORE_YIELD = 64;
    /** Hands out {@link #lockOrder()}: unique in the JVM, so any two variables of one op are ordered. */
    private static final AtomicLong LOCK_ORDER = new AtomicLong();
    /** What {@link #readLocked} and {@link #writeLocked} return: the op was queued, or it may go now. */
    static final int QUEUED = 0;
    static final int GRANTED = 1;

    static {
        try {
            LOCK = MethodHandles.lookup().findVarHandle(Var.class, "lock", int.class);
            VERSION = MethodHandles.lookup().findVarHandle(Var.class, "version", long.class);
            FAILURE = MethodHandles.lookup().findVarHandle(Var.class, "failure", Failure.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Object owner;
    private final String name;
    private final long lockOrder = LOCK_ORDER.getAndIncrement();
    private final Var[] alone = {this};
    // One writer at a time, the op holding the pending write (completeWrite under the lock, countWrites
    // from a merged op's body without it); written with release semantics, read with acquire (VERSION).
    private long version;
    private volatile boolean deleted;
    private volatile Failure failure;

    // The lock guarding the fields below: a test-and-test-and-set spin lock. Every critical section is
    // a handful of field updates and never blocks, so spinning beats a monitor, which the pusher and
    // the completing workers would otherwise inflate by contending on a hot variable.
    @SuppressWarnings("unused") // accessed through LOCK
    private volatile int lock;
    // guarded by lock
    private QueueNode.Writable pendingWrite;
    private QueueNode tail;
    private QueueNode.Writable lastWrite;
    private int readers;
    private VarFences fences; // null until an op completes its access to this variable at launch

    /**
     * @param owner the engine the variable belongs to
     * @param name its name
     */
    public Var(Object owner, String name) {
        this.owner = owner;
        this.name = name;
    }

    /** The engine this variable belongs to. */
    public Object owner() {
        return owner;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public long version() {
        return (long) VERSION.getAcquire(this);
    }

    /** Whether a deletion has been appended. */
    public boolean isDeleted() {
        return deleted;
    }

    /**
     * Refuses a use of this variable once a deletion was registered.
     *
     * @param user the op (or call) that tried to use it, for the message
     * @throws IllegalStateException naming the variable and the user
     */
    public void requireLive(String user) {
        if (deleted) {
            throw new IllegalStateException(this + " was deleted; it cannot be used by op '" + user
                    + "' (deleteVariable makes a variable unusable from the call on)");
        }
    }

    /** A one-element array of this variable, shared by the ops that list only it (do not modify): no copy per push. */
    public Var[] alone() {
        return alone;
    }

    /** This variable's place in the one order in which a contended registration locks (see {@link Registration}). */
    public long lockOrder() {
        return lockOrder;
    }

    /**
     * The failure the variable carries, or null if none or already reported. A reported failure seen
     * here is dropped, so that the variable stops keeping its throwable alive.
     */
    public Failure activeFailure() {
        Failure f = failure;
        if (f == null) {
            return null;
        }
        if (f.isActive()) {
            return f;
        }
        dropReportedFailure(f);
        return null;
    }

    /** Forgets {@code f} (reported) unless another failure has replaced it meanwhile. */
    public void dropReportedFailure(Failure f) {
        FAILURE.compareAndSet(this, f, (Failure) null);
    }

    /**
     * Whether a write is queued or running (reads alone do not count), including a write that was
     * released at launch and whose device work is not done yet.
     */
    public boolean hasPendingWrite() {
        lock();
        try {
            return pendingWrite != null || (fences != null && fences.runningWriter() != null);
        } finally {
            unlock();
        }
    }

    /** The op of the oldest pending write, for diagnostics; null if none. */
    public OpBlock pendingWriter() {
        lock();
        try {
            return pendingWrite == null ? null : pendingWrite.op();
        } finally {
            unlock();
        }
    }

    /** Under the lock, not deleted: appends a read; {@link #GRANTED} if it may run at once. */
    int readLocked(OpBlock op) {
        if (pendingWrite != null) {
            enqueue(op.readNode());
            lastWrite.readsBehind++;
            return QUEUED;
        }
        readers++;
        if (fences != null) {
            fences.passTo(op, false);
        }
        return GRANTED;
    }

    /**
     * Under the lock, not deleted: appends a write; {@link #GRANTED} if it may run at once.
     *
     * @param deletes whether this write deletes the variable: later appends are refused
     */
    int writeLocked(OpBlock op, boolean deletes) {
        if (deletes) {
            deleted = true;
        }
        QueueNode.Writable node = op.writeNode();
        if (pendingWrite != null) {
            enqueue(node);
            lastWrite.nextWrite = node;
            lastWrite = node;
            return QUEUED;
        }
        pendingWrite = node;
        tail = node;
        lastWrite = node;
        if (readers != 0) {
            return QUEUED; // I3: waits for the running readers
        }
        readers = WRITING;
        if (fences != null) {
            fences.passTo(op, true);
        }
        return GRANTED;
    }

    private void enqueue(QueueNode node) {
        tail.next = node;
        tail = node;
    }

    /**
     * A read by {@code op} completed ({@code atLaunch}: released at launch, its device work may still
     * read: the variable keeps it as a fence).
     */
    void completeRead(OpBlock op, boolean atLaunch) {
        OpBlock writer = null;
        lock();
        try {
            if (atLaunch) {
                fences().readAtLaunch(op);
            }
            if (--readers == 0 && pendingWrite != null) {
                readers = WRITING;
                writer = pendingWrite.op();
                if (fences != null) {
                    fences.passTo(writer, true);
                }
            }
        } finally {
            unlock();
        }
        if (writer != null) {
            writer.release(op);
        }
    }

    /**
     * The write by {@code op} (the pending, running write) completed; it counts in {@link #version()}.
     *
     * @param propagated the failure the variable carries from now on, or null to keep what it has
     * @param atLaunch whether {@code op} was released at launch (its device work may still write: the
     *     variable keeps it as a fence)
     */
    void completeWrite(OpBlock op, Failure propagated, boolean atLaunch) {
        QueueNode firstRead;
        int reads = 0;
        OpBlock nextWriter = null;
        boolean fence = atLaunch;
        lock();
        try {
            // A release store: a volatile one would add a full fence inside the critical section. An op
            // whose function counted its writes as it made them (OpBlock.countsItsWrites) adds none.
            VERSION.setRelease(this, version + (op.writesCounted() ? 0 : 1));
            if (fence) {
                // It was released behind the older fences, so waiting for it waits for them.
                fences().writtenAtLaunch(op);
            } else if (fences != null) {
                // It did not launch (it ran on the host, or was skipped before waiting): keep the older
                // fences still in flight for its successors.
                fences.prune();
            }
            if (propagated != null) {
                failure = propagated;
            }
            QueueNode.Writable done = pendingWrite;
            reads = done.readsBehind;
            firstRead = reads > 0 ? done.next : null;
            QueueNode.Writable n = done.nextWrite;
            done.next = null; // the finished write leaves the FIFO
            done.nextWrite = null;
            pendingWrite = n;
            if (n == null) {
                tail = null;
                lastWrite = null;
            }
            if (n != null && reads == 0) {
                readers = WRITING;
                nextWriter = n.op();
            } else {
                readers = reads;
            }
            if (!fence && fences != null && fences.any()) {
                QueueNode r = firstRead;
                for (int i = 0; i < reads; i++, r = r.next) {
                    fences.passTo(r.op(), false);
                }
                if (nextWriter != null) {
                    fences.passTo(nextWriter, true);
                }
            }
        } finally {
            unlock();
        }
        // The released nodes are detached: only this thread touches them now. Each one's next pointer
        // is read and cleared before its op is released (and may run, finish and be reused as nothing).
        for (QueueNode r = firstRead; reads > 0; reads--) {
            QueueNode next = r.next;
            r.next = null;
            OpBlock reader = r.op();
            if (fence) {
                reader.addFence(op);
            }
            reader.release(op);
            r = next;
        }
        if (nextWriter != null) {
            if (fence) {
                nextWriter.addFence(op);
            }
            nextWriter.release(op);
        }
    }

    /** Takes this variable's lock (a spin lock: every critical section is short and never blocks). */
    void lock() {
        if (!LOCK.compareAndSet(this, 0, 1)) {
            contendedLock();
        }
    }

    private void contendedLock() {
        int spins = 0;
        while (true) {
            if ((int) LOCK.getOpaque(this) == 0 && LOCK.compareAndSet(this, 0, 1)) {
                return;
            }
            if (++spins < SPINS_BEFORE_YIELD) {
                Thread.onSpinWait();
            } else {
                Thread.yield(); // the holder may have been descheduled: let it run
            }
        }
    }

    /** Takes this variable's lock if it is free; never waits. */
    boolean tryLock() {
        return LOCK.compareAndSet(this, 0, 1);
    }

    /** Releases the lock taken by {@link #lock()} or {@link #tryLock()}. */
    void unlock() {
        LOCK.setRelease(this, 0);
    }

    /** Under the lock: the variable's fence memory, made at the first op released at launch. */
    private VarFences fences() {
        VarFences f = fences;
        if (f == null) {
            f = new VarFences();
            fences = f;
        }
        return f;
    }

    /**
     * The device work of {@code op}, which released this variable at launch, is done: the variable
     * stops remembering it as a fence, so that the finished op, its closure and what it captured can
     * be collected even if no other op ever touches this variable (passing fences would drop it only then).
     */
    void forgetFence(OpBlock op) {
        lock();
        try {
            if (fences != null) {
                fences.forget(op);
            }
        } finally {
            unlock();
        }
    }

    /**
     * Counts {@code n} more completed writes in {@link #version()}: a bulk's merged op, which holds the
     * write, counts the writes of its members beyond the one its completion counts; a replay run as one
     * op counts each of its ops' writes after that op ({@link OpBlock#countsItsWrites()}). Only the op holding
     * the pending write may call it (without the lock: no other op writes the version meanwhile).
     */
    public void countWrites(int n) {
        VERSION.setRelease(this, version + n);
    }

    /**
     * The variable carries {@code f} from now on, outside a write's completion: the failure of an op
     * released at launch that failed on the device afterwards, or of a bulk member (whose merged op
     * holds the write). Only the op holding the write, or the one that held it last, may call it.
     */
    public void carryFailure(Failure f) {
        failure = f;
    }

    /** Under diagnostics: a snapshot of this variable's queue; see {@link VarSnapshot}. */
    public VarSnapshot snapshot() {
        lock();
        try {
            List<OpBlock> queued = new ArrayList<>();
            for (QueueNode n = pendingWrite; n != null; n = n.next) {
                queued.add(n.op());
            }
            return new VarSnapshot(this, queued, readers == WRITING ? -1 : readers,
                    fences == null ? null : fences.runningWriter());
        } finally {
            unlock();
        }
    }

    @Override
    public String toString() {
        return "var '" + name + "'";
    }
}
