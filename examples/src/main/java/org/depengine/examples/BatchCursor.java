package org.depengine.examples;

import java.util.function.IntSupplier;

/**
 * Where an op of a captured training step finds its batch: the op keeps its closure from replay to
 * replay, so the batch's first sample position comes from here instead of from the closure. The
 * {@code k}-th call (from 0) returns {@code first + (k mod slots) × stride}: the op's {@code k}-th run
 * is its graph's {@code k}-th replay, since the runs of one op are ordered by the variable it writes
 * (which also makes {@link #calls} safe to update from whichever thread runs it). A run the engine
 * skips (after a failed op) does not count, and later positions shift; the training has failed by
 * then, and the failure travels on to the later ops through their variables.
 */
final class BatchCursor implements IntSupplier {
    private final int first;
    private final int stride;
    private final int slots;
    private long calls;

    /**
     * @param first the position of the first replay's batch
     * @param stride the distance between consecutive replays' batches
     * @param slots how many replays an epoch has (the cursor starts over after them)
     */
    BatchCursor(int first, int stride, int slots) {
        this.first = first;
        this.stride = stride;
        this.slots = slots;
    }

    @Override
    public int getAsInt() {
        return first + (int) (calls++ % slots) * stride;
    }
}
