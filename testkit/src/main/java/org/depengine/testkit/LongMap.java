package org.depengine.testkit;

import java.util.Arrays;

/**
 * A map from non-zero {@code long} keys to {@code long} values, by open addressing with linear probing: the
 * object index of {@link HeapDump}, which holds millions of entries where boxed maps would need ten times the
 * memory. Key 0 marks a free slot (HPROF never names an object 0).
 */
final class LongMap {
    /** Receives one entry of {@link #forEach}. */
    interface Entry {
        void accept(long key, long value);
    }

    private long[] keys = new long[1 << 10];
    private long[] values = new long[1 << 10];
    private int size;

    void put(long key, long value) {
        if (key == 0) {
            throw new IllegalArgumentException("key 0 is reserved for free slots");
        }
        if (2 * (size + 1) > keys.length) {
            grow();
        }
        int i = slot(key, keys);
        if (keys[i] == 0) {
            keys[i] = key;
            size++;
        }
        values[i] = value;
    }

    boolean contains(long key) {
        return key != 0 && keys[slot(key, keys)] == key;
    }

    /** The value of {@code key}; throws if it has none. */
    long get(long key) {
        int i = slot(key, keys);
        if (key == 0 || keys[i] != key) {
            throw new IllegalArgumentException("no entry for 0x" + Long.toHexString(key));
        }
        return values[i];
    }

    int size() {
        return size;
    }

    void forEach(Entry action) {
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] != 0) {
                action.accept(keys[i], values[i]);
            }
        }
    }

    private static int slot(long key, long[] keys) {
        int mask = keys.length - 1;
        long h = key * 0x9E3779B97F4A7C15L; // addresses share their low bits: mix them in
        int i = (int) (h ^ h >>> 32) & mask;
        while (keys[i] != 0 && keys[i] != key) {
            i = (i + 1) & mask;
        }
        return i;
    }

    private void grow() {
        long[] oldKeys = keys, oldValues = values;
        keys = new long[oldKeys.length * 2];
        values = new long[oldKeys.length * 2];
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldKeys[i] != 0) {
                int j = slot(oldKeys[i], keys);
                keys[j] = oldKeys[i];
                values[j] = oldValues[i];
            }
        }
    }
}
