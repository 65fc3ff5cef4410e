package org.depengine.profiler;

import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A small, capped table that gives each distinct key an int id (0 is reserved for "too many
 * distinct keys"). Lookups of known keys are lock-free; adding a key takes a lock, which happens
 * once per distinct key. Not part of the API.
 */
/*
 * Why capped: op and variable names may be generated per op ("op#123"), so an unbounded table would
 * grow with the number of ops, which the rings are there to prevent. Past the cap every new key
 * maps to OVERFLOW and is shown as overflowLabel.
 */
final class Interner<K> {
    static final int OVERFLOW = 0;

    private final Map<K, Integer> ids = new ConcurrentHashMap<>();
    private Object[] keys = new Object[64]; // guarded by this; index = id, slot 0 unused
    private int size = 1; // guarded by this
    /**
     * The keys array as last published. An id a reader holds came from add() (or from the map, which
     * add() fills after storing the key), so the store of its key happens-before the read, and this
     * volatile read then returns an array at least as new as the one holding it.
     */
    private volatile Object[] view = keys;
    private final int cap;
    private volatile boolean overflowed;

    Interner(int cap) {
        this.cap = cap;
    }

    int id(K key) {
        Integer id = ids.get(key);
        if (id != null) {
            return id;
        }
        if (overflowed) {
            return OVERFLOW;
        }
        return add(key);
    }

    private synchronized int add(K key) {
        Integer id = ids.get(key);
        if (id != null) {
            return id;
        }
        if (size > cap) {
            overflowed = true;
            return OVERFLOW;
        }
        if (size == keys.length) {
            keys = Arrays.copyOf(keys, keys.length * 2); // doubling: adding n keys costs O(n)
        }
        int next = size++;
        keys[next] = key;
        view = keys;
        ids.put(key, next);
        return next;
    }

    /** The key of an id, or null for OVERFLOW or an unknown id. */
    @SuppressWarnings("unchecked")
    K key(int id) {
        Object[] v = view;
        return id > 0 && id < v.length ? (K) v[id] : null;
    }

    /** How many keys have an id. */
    synchronized int size() {
        return size - 1;
    }

    boolean overflowed() {
        return overflowed;
    }
}
