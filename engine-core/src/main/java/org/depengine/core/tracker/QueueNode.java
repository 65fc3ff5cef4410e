package org.depengine.core.tracker;

/**
 * One registration in a {@link Var}'s FIFO: an op waiting on that variable. An op's first
 * registration that needs a node uses the op itself ({@link OpBlock} is a QueueNode, through
 * {@link PushedOp}), so ops over one variable allocate none; its other registrations get an
 * {@link ExtraRead} or an {@link ExtraWrite}. An op is queued on each of its variables at most once, so
 * the embedded node is never in two FIFOs. Fields are guarded by the lock of the variable whose FIFO
 * holds the node, and by the releasing thread once the node is detached (see Var's overview).
 */
abstract class QueueNode {
    boolean write; // set before the node is linked
    QueueNode next;

    /** The op this registration belongs to. */
    abstract OpBlock op();

    /**
     * A node that can stand for a write. A write's node counts the reads queued right behind it and
     * points to the next write queued after them (or null), both kept by the appends, so that completing
     * the write finds both without walking the reads (each a cache miss on the completing thread) while
     * it holds the variable's lock. A read's extra node ({@link ExtraRead}) does without these fields.
     */
    abstract static class Writable extends QueueNode {
        int readsBehind;
        Writable nextWrite;
    }

    /** A read registration of an op whose embedded node is already in use. */
    static final class ExtraRead extends QueueNode {
        private final OpBlock op;

        ExtraRead(OpBlock op) {
            this.op = op;
        }

        @Override
        OpBlock op() {
            return op;
        }
    }

    /** A write registration of an op whose embedded node is already in use. */
    static final class ExtraWrite extends Writable {
        private final OpBlock op;

        ExtraWrite(OpBlock op) {
            this.op = op;
        }

        @Override
        OpBlock op() {
            return op;
        }
    }
}
