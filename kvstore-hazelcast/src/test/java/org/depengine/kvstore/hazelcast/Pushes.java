package org.depengine.kvstore.hazelcast;

import java.util.Random;

/** The values the store tests push and init: fixed by the worker, the round and the key, so a model needs no run. */
final class Pushes {
    private Pushes() {
    }

    /** Worker {@code rank}'s push of step {@code step}: small whole numbers, so that sums in any order are exact. */
    static float[] small(int rank, int step, int length) {
        float[] g = new float[length];
        for (int i = 0; i < length; i++) {
            g[i] = ((rank + 1) * 7 + step * 3 + i) % 11 - 5;
        }
        return g;
    }

    /** Every worker's init of {@code key}: the same on each (an elastic job requires it), uniform in [-1, 1). */
    static float[] initial(String key, int length) {
        return uniform(new Random(key.hashCode()), length);
    }

    /** The push of the worker of first rank {@code rank} in round {@code round} of {@code key}, uniform in [-1, 1). */
    static float[] gradient(int rank, int round, String key, int length) {
        return uniform(new Random(1_000_003L * round + 131L * rank + key.hashCode()), length);
    }

    /** The sum of the pushes of {@code ranks} (first ranks) in {@code round}, added in that order (the view's rank order). */
    static float[] gradientSum(java.util.List<Integer> ranks, int round, String key, int length) {
        float[] s = gradient(ranks.get(0), round, key, length);
        for (int i = 1; i < ranks.size(); i++) {
            float[] g = gradient(ranks.get(i), round, key, length);
            for (int j = 0; j < s.length; j++) {
                s[j] += g[j];
            }
        }
        return s;
    }

    private static float[] uniform(Random rnd, int length) {
        float[] a = new float[length];
        for (int i = 0; i < length; i++) {
            a[i] = rnd.nextFloat() * 2 - 1;
        }
        return a;
    }
}
