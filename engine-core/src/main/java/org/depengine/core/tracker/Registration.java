package org.depengine.core.tracker;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * How pushes register their ops on the ops' variables: one instance per engine ({@link OpHost#registration()}).
 * Thread-safe; every method may be called from any pushing thread.
 *
 * <p>What must hold: the appends of one op to all its variables are one step with respect to other
 * pushes. Otherwise two concurrent pushes (X reads a writes b, Y reads b writes a) could each be
 * granted their read and queue their write behind the other's read, a cycle; and a push could slip
 * between another's appends, which respects each variable's order but not the order of the pushing
 * threads. The pushes of all threads must be strictly serialisable: a push that returned before
 * another began comes first, which keeps each thread's order.
 *
 * <p>How, in three cases:
 * <ul>
 *   <li><b>One variable.</b> A user op over one variable waits while a push registers alone (below),
 *   then appends under that variable's lock: one step by itself.</li>
 *   <li><b>Alone</b> (the usual case: one pushing thread). An op over several variables whose push
 *   finds no other multi-variable push registering takes the engine's registration word from idle to
 *   {@code ALONE}; until it gives it back no other multi-variable push or deletion registers. It checks
 *   its variables for deletion, then appends to each under that variable's lock alone, so a worker
 *   completing an earlier op waits for one append at most, not for the whole registration.</li>
 *   <li><b>Together</b> (several threads push multi-variable ops at once). Each adds itself to the
 *   word's count of such pushes (waiting while one registers alone) and uses two-phase locking: it
 *   locks all its variables, checks them for deletion, appends, then unlocks. Locking tries each lock
 *   in list order without waiting; only if one is held does it take them all in their global order
 *   ({@link Var#lockOrder()}, ascending), waiting as needed, so two pushes never wait for each other
 *   in a cycle, and pushes over disjoint variables do not wait for each other at all.</li>
 * </ul>
 *
 * <p>Why that is enough: pushes registering together are ordered the same way on all their shared
 * variables (each held all its locks at once), in the order of their lock points, and a push that
 * returned before another began locked first. A push S registering alone overlaps no other
 * multi-variable push; only one-variable ops can append between its appends, and only those that read
 * the word before S took it (a later reader waits for S). Follow any chain of orderings out of S: an
 * op appended after S on S's variable x; ops appended after that one on x; and any push that began
 * after one of those returned, which read the word after S took it and so appended after S ended, as
 * did everything ordered after such a push. Every op on the chain comes after S on every variable it
 * shares with S, so none comes before S: no cycle passes through S. (Without the wait, a thread could
 * append A on x after S did, then B on y before S did: S before A, A before B in that thread's
 * order, B before S, a cycle; the long form of the concurrent-pusher conformance test found exactly
 * that.) Deletion: only a registration sets a variable's
 * deleted flag, and deletions never register as one-variable ops, so the flags an alone push checked
 * stay as they were until it has appended: a deleted variable refuses the whole op and nothing is
 * registered. Completions hold one variable's lock at a time, so they never take part in a cycle of
 * waits (though they do wait while a push holds it).
 */
public final class Registration {
    private static final VarHandle WORD = MethodHandles.arrayElementVarHandle(int[].class);
    /** The word's value while one multi-variable push registers alone; else the count registering together. */
    private static final int ALONE = -1;
    /** The word's index: 64 bytes from either end of its array, so no other data shares its cache line. */
    private static final int AT = 16;

    private final int[] word = new int[2 * AT];

    /** An engine's registration; the engine makes one and hands it to its ops through {@link OpHost}. */
    public Registration() {
    }

    /**
     * Registers {@code op} on every variable of {@code def} (its definition), or on none if one is
     * deleted; hands the op the number of variables that let it go at once ({@link OpBlock#granted}).
     *
     * @return null, or the deleted variable that refused the op (nothing was registered)
     */
    Var register(OpBlock op, OpDef def) {
        if (def.varCount() <= 1 && def.kind() != OpDef.Kind.DELETE_VAR) {
            awaitNoneAlone();
            return def.varCount() == 0 ? null : appendOne(op, def);
        }
        if (WORD.compareAndSet(word, AT, 0, ALONE)) {
            try {
                return appendAlone(op, def);
            } finally {
                WORD.setRelease(word, AT, 0);
            }
        }
        joinTogether();
        try {
            return lockAndAppend(op, def);
        } finally {
            WORD.getAndAdd(word, AT, -1);
        }
    }

    /**
     * Registers the ops of one replay ({@link OpBlock#linkReplay}), as one step with respect to every
     * other push. One step matters here: a push appended between the graph's first and last access of
     * a variable would run beside the accesses in between, which are not on the queue. If a variable
     * was deleted nothing is registered and every op is cancelled ({@link OpLatch#cancelReplay}).
     *
     * <p>Alone (no other multi-variable push registering, the usual case), the replay takes the word
     * as an alone push does, checks its variables for deletion, then appends each variable's accesses
     * under that variable's lock alone, all of them in one hold: workers completing earlier ops wait
     * for one variable's appends at most, not for the whole replay. The alone argument of the class
     * overview holds for the replay as one op, since each of its variables gets all its appends at
     * once. Together, it locks every variable of the graph in ascending {@link Var#lockOrder()}, checks
     * them, appends op by op, then unlocks (as a multi-variable push together does).
     *
     * @param ops the replay's ops, in graph order, each linked to its slot
     * @param vars every variable the graph uses, once, in ascending {@link Var#lockOrder()}
     * @param accesses per variable of {@code vars}: its registered accesses in graph order, each the
     *     op's index times 2, plus 1 for a write
     * @return null, or the deleted variable that refused the replay
     */
    public Var registerReplay(OpBlock[] ops, Var[] vars, int[][] accesses) {
        if (WORD.compareAndSet(word, AT, 0, ALONE)) {
            try {
                return replayAlone(ops, vars, accesses);
            } finally {
                WORD.setRelease(word, AT, 0);
            }
        }
        joinTogether();
        try {
            for (Var v : vars) {
                v.lock();
            }
            try {
                Var deleted = refuseIfDeleted(ops, vars);
                if (deleted != null) {
                    return deleted;
                }
                for (OpBlock op : ops) {
                    appendReplayed(op);
                }
            } finally {
                for (Var v : vars) {
                    v.unlock();
                }
            }
        } finally {
            WORD.getAndAdd(word, AT, -1);
        }
        return null;
    }

    /** Alone: checks every variable for deletion, then appends each variable's accesses in one hold of its lock. */
    private static Var replayAlone(OpBlock[] ops, Var[] vars, int[][] accesses) {
        Var deleted = refuseIfDeleted(ops, vars);
        if (deleted != null) {
            return deleted;
        }
        for (int k = 0; k < vars.length; k++) {
            Var v = vars[k];
            v.lock();
            try {
                for (int a : accesses[k]) {
                    OpBlock op = ops[a >>> 1];
                    op.granted((a & 1) != 0 ? v.writeLocked(op, false) : v.readLocked(op));
                }
            } finally {
                v.unlock();
            }
        }
        for (OpBlock op : ops) {
            op.registeredReplay();
        }
        return null;
    }

    /** The first deleted variable of a replay, having cancelled every op of it; or null. */
    private static Var refuseIfDeleted(OpBlock[] ops, Var[] vars) {
        for (Var v : vars) {
            if (v.isDeleted()) {
                IllegalStateException refused = new IllegalStateException(v + " was deleted concurrently with "
                        + "a replay that uses it; nothing of the replay was pushed");
                for (OpBlock op : ops) {
                    op.cancelReplay(refused);
                }
                return v;
            }
        }
        return null;
    }

    /** Under the locks of all its variables: appends a replayed op's registered accesses. */
    private static void appendReplayed(OpBlock op) {
        OpDef def = op.def();
        ReplaySlot slot = op.slot();
        Var[] reads = def.reads();
        Var[] writes = def.writes();
        int granted = 0;
        for (int i = 0; i < reads.length; i++) {
            if (slot.registers(i)) {
                granted += reads[i].readLocked(op);
            }
        }
        for (int i = 0; i < writes.length; i++) {
            if (slot.registers(reads.length + i)) {
                granted += writes[i].writeLocked(op, false);
            }
        }
        op.registeredReplay();
        op.granted(granted);
    }

    /** Counts the calling push among those registering together, once no push registers alone. */
    private void joinTogether() {
        int spins = 0;
        for (;;) {
            int w = (int) WORD.getVolatile(word, AT);
            if (w >= 0) {
                if (WORD.compareAndSet(word, AT, w, w + 1)) {
                    return;
                }
            } else {
                spins = pause(spins);
            }
        }
    }

    /** Returns once no push registers alone (a one-variable op: see the class overview for why). */
    private void awaitNoneAlone() {
        int spins = 0;
        while ((int) WORD.getVolatile(word, AT) == ALONE) {
            spins = pause(spins);
        }
    }

    /** One wait for an alone registration to end: a few appends, unless its pusher lost its core. */
    private static int pause(int spins) {
        if (spins < Var.SPINS_BEFORE_YIELD) {
            Thread.onSpinWait();
        } else {
            Thread.yield();
        }
        return spins + 1;
    }

    /** A one-variable op: checks and appends under that variable's lock (one step by itself). */
    private static Var appendOne(OpBlock op, OpDef def) {
        boolean write = def.reads().length == 0;
        Var v = write ? def.writes()[0] : def.reads()[0];
        int granted;
        v.lock();
        try {
            if (v.isDeleted()) {
                return v;
            }
            granted = write ? v.writeLocked(op, false) : v.readLocked(op);
        } finally {
            v.unlock();
        }
        op.granted(granted);
        return null;
    }

    /** Alone: checks every variable for deletion, then appends to each under its own lock. */
    private static Var appendAlone(OpBlock op, OpDef def) {
        Var[] reads = def.reads();
        Var[] writes = def.writes();
        Var deleted = firstDeleted(reads, writes);
        if (deleted != null) {
            return deleted;
        }
        boolean deletes = def.kind() == OpDef.Kind.DELETE_VAR;
        int granted = 0;
        for (Var v : reads) {
            v.lock();
            try {
                granted += v.readLocked(op);
            } finally {
                v.unlock();
            }
        }
        for (Var v : writes) {
            v.lock();
            try {
                granted += v.writeLocked(op, deletes);
            } finally {
                v.unlock();
            }
        }
        op.granted(granted);
        return null;
    }

    /** Two-phase locking: locks every variable, checks for deletion, appends, unlocks. */
    private static Var lockAndAppend(OpBlock op, OpDef def) {
        Var[] reads = def.reads();
        Var[] writes = def.writes();
        boolean deletes = def.kind() == OpDef.Kind.DELETE_VAR;
        int granted = 0;
        lockAll(def);
        try {
            Var deleted = firstDeleted(reads, writes);
            if (deleted != null) {
                return deleted;
            }
            for (Var v : reads) {
                granted += v.readLocked(op);
            }
            for (Var v : writes) {
                granted += v.writeLocked(op, deletes);
            }
        } finally {
            for (Var v : reads) {
                v.unlock();
            }
            for (Var v : writes) {
                v.unlock();
            }
        }
        op.granted(granted);
        return null;
    }

    /**
     * The first of the variables that a deletion's registration has marked deleted, or null. Stable
     * while the caller holds their locks (together) or registers alone: only a registration marks one.
     */
    private static Var firstDeleted(Var[] reads, Var[] writes) {
        for (Var v : reads) {
            if (v.isDeleted()) {
                return v;
            }
        }
        for (Var v : writes) {
            if (v.isDeleted()) {
                return v;
            }
        }
        return null;
    }

    /**
     * Locks every variable of {@code def}: first by trying each in list order without waiting (no
     * sorting in the common, uncontended case); if one is held, releases those taken and locks them
     * all in the global order, waiting as needed. Only the second phase waits, and it waits in the
     * global order, so no two pushes wait for each other in a cycle.
     */
    private static void lockAll(OpDef def) {
        Var[] reads = def.reads();
        Var[] writes = def.writes();
        int r = 0;
        while (r < reads.length && reads[r].tryLock()) {
            r++;
        }
        int w = 0;
        if (r == reads.length) {
            while (w < writes.length && writes[w].tryLock()) {
                w++;
            }
            if (w == writes.length) {
                return;
            }
        }
        for (int i = 0; i < r; i++) {
            reads[i].unlock();
        }
        for (int i = 0; i < w; i++) {
            writes[i].unlock();
        }
        for (Var v : def.lockOrder()) {
            v.lock();
        }
    }
}
