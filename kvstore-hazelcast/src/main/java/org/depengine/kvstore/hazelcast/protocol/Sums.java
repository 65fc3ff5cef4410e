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

    /**
     * Writes the sum of {@code slots} (in rank order, at least one, each with {@code out}'s remaining
     * floats from its own position) into {@code out} from its position; no buffer's position moves.
     */
    public static void into(List<FloatBuffer> slots, FloatBuffer out) {
        int n = out.remaining();
        int o = out.position();
        FloatBuffer first = slots.get(0);
        int f = first.position();
        if (slots.size() == 1) {
            out.duplicate().put(first.duplicate());
            return;
        }
        FloatBuffer second = slots.get(1);
        int s1 = second.position();
        for (int i = 0; i < n; i++) {
            out.put(o + i, first.get(f + i) + second.get(s1 + i));
        }
        for (int s = 2; s < slots.size(); s++) {
            FloatBuffer slot = slots.get(s);
            int p = slot.position();
            for (int i = 0; i < n; i++) {
                out.put(o + i, out.get(o + i) + slot.get(p + i));
            }
        }
    }
}
