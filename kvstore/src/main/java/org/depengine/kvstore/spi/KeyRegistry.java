package org.depengine.kvstore.spi;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.depengine.api.VarHandle;
import org.depengine.api.device.DeviceArray;

/**
 * A store's initialised keys, and the checks that a call names one of them with arrays of its length.
 * Thread-safe.
 */
final class KeyRegistry {
    private final Map<String, Key> keys = new ConcurrentHashMap<>();
    private final String type;

    /** @param type the store's type, for messages */
    KeyRegistry(String type) {
        this.type = type;
    }

    /** The longest key, in floats: its bytes are indexed by an int. */
    private static final long MAX_FLOATS = Integer.MAX_VALUE / Float.BYTES;

    /**
     * Checks a new key's name and initial value.
     *
     * @throws IllegalArgumentException if the name is empty or the value empty or longer than {@link #MAX_FLOATS}
     */
    static void checkNew(String key, DeviceArray value) {
        if (key.isEmpty()) {
            throw new IllegalArgumentException("kvstore key must not be empty");
        }
        if (value.length() == 0 || value.length() > MAX_FLOATS) {
            throw new IllegalArgumentException("cannot init key '" + key + "' with " + value + ": a key holds 1 to "
                    + MAX_FLOATS + " floats, this value has " + value.length());
        }
    }

    /** @throws IllegalArgumentException if a key of that name is already initialised */
    void add(Key k) {
        Key before = keys.putIfAbsent(k.name(), k);
        if (before != null) {
            throw new IllegalArgumentException("key '" + k.name() + "' is already initialised on this " + type
                    + " store (" + before.length() + " floats); init each key once");
        }
    }

    /** The key of that name, or null. */
    Key get(String name) {
        return keys.get(name);
    }

    /** Every key, as a snapshot in name order. */
    List<Key> sorted() {
        List<Key> out = new ArrayList<>(keys.values());
        out.sort(Comparator.comparing(Key::name));
        return out;
    }

    /** The names, as an unmodifiable sorted snapshot. */
    SortedSet<String> names() {
        return Collections.unmodifiableSortedSet(new TreeSet<>(keys.keySet()));
    }

    /** Every variable of every key. */
    List<VarHandle> vars() {
        List<VarHandle> vars = new ArrayList<>();
        for (Key k : keys.values()) {
            vars.addAll(k.vars());
        }
        return vars;
    }

    boolean isEmpty() {
        return keys.isEmpty();
    }

    /**
     * The key a call names, checked to be initialised and to have the length of each of the arrays.
     *
     * @throws NullPointerException if the key, the list or an array is null (naming which)
     * @throws IllegalArgumentException if the key is unknown, the list empty or an array's length wrong
     */
    Key checked(String call, String key, List<DeviceArray> arrays, String what) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(arrays, what);
        Key k = known(key, call);
        if (arrays.isEmpty()) {
            throw new IllegalArgumentException(call + " of key '" + key + "': " + what + " is empty; give at least one array");
        }
        for (int i = 0; i < arrays.size(); i++) {
            DeviceArray a = arrays.get(i);
            if (a == null) {
                throw new NullPointerException(call + " of key '" + key + "': " + what + "[" + i + "] is null");
            }
            if (a.length() != k.length()) {
                throw new IllegalArgumentException(call + " of key '" + key + "': " + what + "[" + i + "] = " + a
                        + " has " + a.length() + " floats, but the key holds " + k.length()
                        + " (set by init); every array pushed to or pulled from a key has the key's length");
            }
        }
        return k;
    }

    /** @throws IllegalArgumentException if no key of that name is initialised, naming those that are */
    Key known(String key, String call) {
        Key k = keys.get(key);
        if (k == null) {
            throw new IllegalArgumentException(call + " of unknown key '" + key + "' on this " + type + " store: call init(\""
                    + key + "\", value) first" + (keys.isEmpty() ? " (no key is initialised)"
                            : "; keys initialised: " + new TreeSet<>(keys.keySet())));
        }
        return k;
    }
}
