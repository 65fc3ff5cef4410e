package org.depengine.kvstore.hazelcast.protocol;

import java.nio.FloatBuffer;
import java.util.List;

/**
 * A round's sum: its contributions added in rank order, from the first one as it is, so that every run,
 * every mode and every split of a key sums the same way ({@code (0 + g0) + g1} is {@code g0 + g1} exactly).
 */
public final class Sums {
    private Sums() {
    }

    /**
     * The sum of {@code slots} (in rank order, at least one): the one slot itself when there is one (never
     * changed afterwards: callers treat a sum as read-only), else a new array.
     */
    public static float[] of(List<float[]> slots) {
        float[] sum = slots.get(0);
        if (slots.size() == 1) {
            return sum;
        }
        sum = sum.clone();
        for (int s = 1; s < slots.size(); s++) {
            float[] slot = slots.get(s);
            for (int i = 0; i < sum.length; i++) {
                sum[i] += slot[i];
            }
        }
        return sum;
    }

    /** Floats summed at once: a block of each slot fits in the first-level cache, and the loop over arrays vectorizes. */
    private static final int BLOCK = 2048;

    /**
     * Writes the sum of {@code slots} (in rank order, at least one, each with {@code out}'s remaining
     * floats from its own position) into {@code out} from its position; no buffer's position moves. Works a
     * block at a time through arrays, as element by element on direct buffers it would not vectorize.
     */
    public static void into(List<FloatBuffer> slots, FloatBuffer out) {
        int n = out.remaining();
        int o = out.position();
        if (slots.size() == 1) {
            out.duplicate().put(slots.get(0).duplicate().limit(slots.get(0).position() + n));
            return;
        }
        float[] acc = new float[Math.min(BLOCK, n)];
        float[] next = new float[acc.length];
        for (int from = 0; from < n; from += BLOCK) {
            int len = Math.min(BLOCK, n - from);
            FloatBuffer first = slots.get(0);
            first.get(first.position() + from, acc, 0, len);
            for (int s = 1; s < slots.size(); s++) {
                FloatBuffer slot = slots.get(s);
                slot.get(slot.position() + from, next, 0, len);
                for (int i = 0; i < len; i++) {
                    acc[i] += next[i];
                }
            }
            out.put(o + from, acc, 0, len);
        }
    }
}
