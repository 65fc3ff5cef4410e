package org.depengine.core.tracker;

/**
 * How a push registers its op on the op's variables: two-phase locking. All the op's variables are
 * locked, checked for deletion, appended to (reads, then writes), and only then unlocked. Locking tries
 * each lock in list order without waiting; only if one is held does it take them all in their global
 * order ({@link Var#lockOrder()}, ascending), waiting as needed.
 *
 * <p>Why: the appends of one op to all its variables must be one step with respect to other pushes,
 * or two concurrent pushes (X reads a writes b, Y reads b writes a) could each be granted their read
 * and queue their write behind the other's read, a cycle; and a push could slip between another's
 * appends, which respects each variable's order but not the order of the pushing threads. With every
 * lock held at once, two pushes that share variables are ordered the same way on all of them: the
 * pushes of all threads are serialisable in the order of their lock points, which keeps each thread's
 * order (strictly serialisable: a push that returned before another began comes first). Waiting only
 * in one global order means two pushes never wait for each other in a cycle; pushes over
 * disjoint variables do not wait for each other at all. Completions hold one variable's lock at a
 * time, so they never take part in a cycle of waits (though they do wait while a push holds it).
 */
final class Registration {
    private Registration() {
    }

    /**
     * Registers {@code op} on every variable of {@code def} (its definition), or on none if one is
     * deleted; hands the op the number of variables that let it go at once ({@link OpBlock#granted}).
     *
     * @return null, or the deleted variable that refused the op (nothing was registered)
     */
    static Var lockAndAppend(OpBlock op, OpDef def) {
        Var[] reads = def.reads();
        Var[] writes = def.writes();
        boolean deletes = def.kind() == OpDef.Kind.DELETE_VAR;
        int granted = 0;
        lockAll(def);
        try {
            for (Var v : reads) {
                if (v.deletedLocked()) {
                    return v;
                }
            }
            for (Var v : writes) {
                if (v.deletedLocked()) {
                    return v;
                }
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
