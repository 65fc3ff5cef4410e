package org.depengine.core.tracker;

import java.util.Arrays;

/**
 * A variable's memory of release at launch (see {@link FenceState}): the ops that completed their
 * access to it at launch and may still be using it on a device, until they complete. Allocated by the
 * variable at the first such op; a variable no device op touches has none.
 *
 * <ul>
 *   <li>{@code writer}: the last write that completed at launch (or null). Replaced by the next write
 *   completed at launch; dropped once its device work is done (seen done by any method here, or told by
 *   its completion, {@link #forget}). A write completed on the host does not drop it: its successors
 *   must still respect it ({@link #prune} keeps a writer that is still a fence);</li>
 *   <li>{@code readers}: the reads that completed at launch since that write.</li>
 * </ul>
 * Every op the variable releases receives the fences it conflicts with: a read gets the writer, a
 * write gets the writer and the readers. Older fences need not be passed: each fence was itself
 * released behind the ones before it, so waiting for it waits for them (a device event completes after
 * the work it waited for; a host deferral waits for the fence's completion). Fences already done are
 * dropped when seen.
 *
 * <p>Not thread-safe: every method is called under the owning variable's lock.
 */
final class VarFences {
    private OpBlock writer;
    private OpBlock[] readers;
    private int readerCount;

    /** Hands {@code to} the fences it must respect (a read: the writer; a write: all); drops those done. */
    void passTo(OpBlock to, boolean write) {
        OpBlock w = writer;
        if (w != null) {
            if (w.isFence()) {
                to.addFence(w);
            } else {
                writer = null;
            }
        }
        if (write) {
            for (int i = 0; i < readerCount; i++) {
                if (readers[i].isFence()) {
                    to.addFence(readers[i]);
                }
            }
        }
    }

    /** Whether any fence may be remembered (some may be done already). */
    boolean any() {
        return writer != null || readerCount != 0;
    }

    /**
     * A write completed at launch: it becomes the writer, and the readers are forgotten (it was released
     * behind them, so waiting for it waits for them).
     */
    void writtenAtLaunch(OpBlock op) {
        writer = op;
        if (readerCount != 0) {
            Arrays.fill(readers, 0, readerCount, null);
            readerCount = 0;
        }
    }

    /** Remembers a read completed at launch, compacting away reads already done. */
    void readAtLaunch(OpBlock op) {
        if (readers == null) {
            readers = new OpBlock[4];
        }
        prune();
        int n = readerCount;
        if (n == readers.length) {
            readers = Arrays.copyOf(readers, n * 2);
        }
        readers[n++] = op;
        readerCount = n;
    }

    /** Forgets the fences whose device work is done. */
    void prune() {
        if (writer != null && !writer.isFence()) {
            writer = null;
        }
        int n = 0;
        for (int i = 0; i < readerCount; i++) {
            if (readers[i].isFence()) {
                readers[n++] = readers[i];
            }
        }
        if (n < readerCount) {
            Arrays.fill(readers, n, readerCount, null);
        }
        readerCount = n;
    }

    /** {@code op}, a fence of this variable, completed: it is forgotten (with any other reader done). */
    void forget(OpBlock op) {
        if (writer == op) {
            writer = null;
        }
        for (int i = 0; i < readerCount; i++) {
            if (readers[i] == op) {
                prune(); // op is no fence any more: this drops it with any other done reader
                break;
            }
        }
    }

    /** The writer if it is still a fence (its device work may still write), else null. */
    OpBlock runningWriter() {
        OpBlock w = writer;
        return w != null && w.isFence() ? w : null;
    }
}
