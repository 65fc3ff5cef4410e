package org.depengine.core.tracker;

/**
 * One registration in a {@link Var}'s FIFO: an op waiting on that variable. An op's first
 * registration that needs a node uses the op itself ({@link OpBlock} is a QueueNode, through
 * {@link PushedOp}), so ops over one variable allocate none; its other registrations get an
 * {@link Extra}. An op is queued on each of its variables at most once, so the embedded node is never
 * in two FIFOs. Fields are guarded by the lock of the variable whose FIFO holds the node, and by the
 * releasing thread once the node is detached (see Var's overview).
 */
abstract class QueueNode {
    boolean write; // set before the node is linked
    QueueNode next;
    // A write's node only: the reads queued right behind it, and the next write queued after them (or
    // null). Kept by the appends, so that completing the write finds both without walking the reads
    // (each a cache miss on the completing thread) while it holds the variable's lock.
    int readsBehind;
    QueueNode nextWrite;

    /** The op this registration belongs to. */
    abstract OpBlock op();

    /** A registration of an op whose embedded node is already in use. */
    static final class Extra extends QueueNode {
        private final OpBlock op;

        Extra(OpBlock op) {
            this.op = op;
        }

        @Override
        OpBlock op() {
            return op;
        }
    }
}
