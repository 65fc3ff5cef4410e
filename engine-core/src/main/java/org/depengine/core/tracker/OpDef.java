package org.depengine.core.tracker;

import java.util.AbstractList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.RandomAccess;
import org.depengine.api.AsyncFn;
import org.depengine.api.FnProperty;
import org.depengine.api.OprHandle;
import org.depengine.api.SyncFn;
import org.depengine.api.VarHandle;

/**
 * What an op does: its function, its validated and de-duplicated variables, its property. A
 * definition made by {@code newOperator} is pushed many times; {@code pushSync}/{@code pushAsync}
 * make a throw-away one per push. Immutable apart from the deleted flag and the arguments, which a
 * throw-away definition is given once, before it is pushed.
 */
public final class OpDef implements OprHandle {
    private static final int INSERTION_SORT_LIMIT = 16;
    private static final Comparator<Var> BY_LOCK_ORDER = Comparator.comparingLong(Var::lockOrder);
    /** What made the op; internal kinds bypass the skip rules. */
    public enum Kind {
        /** A user's op. */
        USER,
        /** A variable deletion (runs after {@code notifyShutdown}). */
        DELETE_VAR,
        /** An engine-internal read that wakes a thread blocked in {@code waitForVar}; never skipped, run inline. */
        WAIT
    }

    private final Object owner;
    private final Object fn; // SyncFn or AsyncFn
    private final boolean sync;
    private final Var[] reads;
    private final Var[] writes;
    private volatile Var[] lockOrder; // reads and writes by Var.lockOrder(), made on first use (contended pushes)
    private final FnProperty prop;
    private final String name;
    private final Kind kind;
    private final int ops;
    private volatile boolean deleted;
    private Map<String, Object> args = Map.of(); // set before the push that publishes it (withArgs)

    /**
     * @param owner the engine the definition belongs to
     * @param fn a {@link SyncFn} or an {@link AsyncFn}
     * @param reads de-duplicated, disjoint from writes
     * @param writes de-duplicated
     * @param name null for a generated name
     */
    public OpDef(Object owner, Object fn, Var[] reads, Var[] writes, FnProperty prop, String name, Kind kind) {
        this(owner, fn, reads, writes, prop, name, kind, 1);
    }

    /**
     * A definition that stands for {@code ops} of the user's ops (a replay run as one op, in
     * {@code core.replay}, whose push takes as many ids and pending-count entries): the engine that
     * runs it counts as many ops run. The other arguments as above.
     */
    public OpDef(Object owner, Object fn, Var[] reads, Var[] writes, FnProperty prop, String name, Kind kind, int ops) {
        if (ops < 1) {
            throw new IllegalArgumentException("a definition stands for at least one op: " + ops);
        }
        if (!(fn instanceof SyncFn) && !(fn instanceof AsyncFn)) {
            throw new IllegalArgumentException("fn must be a SyncFn or an AsyncFn: " + fn);
        }
        this.owner = owner;
        this.fn = fn;
        this.sync = fn instanceof SyncFn;
        this.reads = reads;
        this.writes = writes;
        this.prop = prop;
        this.name = name;
        this.kind = kind;
        this.ops = ops;
    }

    /** How many of the user's ops a push of this definition stands for: 1, but for a replay run as one op. */
    public int ops() {
        return ops;
    }

    /** The engine this belongs to. */
    public Object owner() {
        return owner;
    }

    /** Whether {@link #syncFn()} (else {@link #asyncFn()}) is the function. */
    public boolean isSync() {
        return sync;
    }

    /** The synchronous function. */
    public SyncFn syncFn() {
        return (SyncFn) fn;
    }

    /** The asynchronous function. */
    public AsyncFn asyncFn() {
        return (AsyncFn) fn;
    }

    /** The variables read (shared array: do not modify). */
    public Var[] reads() {
        return reads;
    }

    /** The variables written (shared array: do not modify). */
    public Var[] writes() {
        return writes;
    }

    /** The number of variables the op registers on: its reads and its writes. */
    public int varCount() {
        return reads.length + writes.length;
    }

    /**
     * Every variable of the op, reads and writes, in ascending {@link Var#lockOrder()}: the order in
     * which a contended registration locks them (shared array: do not modify). Made on first use and
     * kept, so an operator from {@code newOperator} sorts once.
     *
     * @throws IllegalArgumentException if a variable is listed twice (in one list or both): the callers
     *     de-duplicate, so this is an engine bug, refused rather than waiting for its own lock
     */
    Var[] lockOrder() {
        Var[] order = lockOrder;
        if (order == null) {
            order = lockOrder(reads, writes);
            lockOrder = order; // racing threads compute the same array
        }
        return order;
    }

    private static Var[] lockOrder(Var[] reads, Var[] writes) {
        if (writes.length == 0) {
            if (reads.length <= 1) {
                return reads;
            }
        } else if (reads.length == 0 && writes.length == 1) {
            return writes;
        }
        Var[] all = Arrays.copyOf(reads, reads.length + writes.length);
        System.arraycopy(writes, 0, all, reads.length, writes.length);
        if (all.length > INSERTION_SORT_LIMIT) {
            Arrays.sort(all, BY_LOCK_ORDER);
        } else {
            // Insertion sort: most ops have a handful of variables, and it allocates nothing.
            for (int i = 1; i < all.length; i++) {
                Var v = all[i];
                int j = i - 1;
                while (j >= 0 && all[j].lockOrder() > v.lockOrder()) {
                    all[j + 1] = all[j];
                    j--;
                }
                all[j + 1] = v;
            }
        }
        for (int i = 1; i < all.length; i++) {
            if (all[i] == all[i - 1]) {
                throw new IllegalArgumentException(all[i] + " is listed twice in an op's variables");
            }
        }
        return all;
    }

    /** The property. */
    public FnProperty prop() {
        return prop;
    }

    /** The given name, or null. */
    public String givenName() {
        return name;
    }

    /** The kind. */
    public Kind kind() {
        return kind;
    }

    @Override
    public String name() {
        return name != null ? name : "operator@" + Integer.toHexString(System.identityHashCode(this));
    }

    /**
     * The failure a run of this op must take over instead of running, or null: the first active
     * failure of a variable it reads, else of one it writes.
     */
    public Failure inheritedFailure() {
        for (Var v : reads) {
            Failure f = v.activeFailure();
            if (f != null) {
                return f;
            }
        }
        for (Var v : writes) {
            Failure f = v.activeFailure();
            if (f != null) {
                return f;
            }
        }
        return null;
    }

    /**
     * Gives this (throw-away, not yet pushed) definition the arguments of its push; returns it.
     *
     * @throws NullPointerException naming what is null: the map, a key or a value
     * @throws IllegalArgumentException if a value is not a Long, Double, Boolean or String
     */
    public OpDef withArgs(Map<String, ?> given) {
        Objects.requireNonNull(given, "args");
        if (given.isEmpty()) {
            return this;
        }
        Map<String, Object> copy = new LinkedHashMap<>(given.size() * 2);
        for (Map.Entry<String, ?> e : given.entrySet()) {
            String k = Objects.requireNonNull(e.getKey(), () -> "an argument key of op '" + name() + "' is null");
            Object v = Objects.requireNonNull(e.getValue(), () -> "argument '" + k + "' of op '" + name() + "' is null");
            if (!(v instanceof Long || v instanceof Double || v instanceof Boolean || v instanceof String)) {
                throw new IllegalArgumentException("argument '" + k + "' of op '" + name() + "' is a " + v.getClass().getName()
                        + "; give a Long, Double, Boolean or String");
            }
            copy.put(k, v);
        }
        this.args = Collections.unmodifiableMap(copy);
        return this;
    }

    /** The arguments of the push (empty for none), in the order given. */
    public Map<String, Object> args() {
        return args;
    }

    /** Whether {@link #markDeleted()} was called. */
    public boolean isDeleted() {
        return deleted;
    }

    /**
     * Marks the definition deleted.
     *
     * @throws IllegalStateException if it already was
     */
    public synchronized void markDeleted() {
        if (deleted) {
            throw new IllegalStateException(this + " was already deleted; delete an operator once");
        }
        deleted = true;
    }

    // Views made per call (only listeners ask, about once per op), so no op carries fields for them.
    List<VarHandle> readList() {
        return new VarList(reads);
    }

    List<VarHandle> writeList() {
        return new VarList(writes);
    }

    /** A read-only list over variables fixed at push: one small object, no copy. */
    private static final class VarList extends AbstractList<VarHandle> implements RandomAccess {
        private final Var[] vars;

        VarList(Var[] vars) {
            this.vars = vars;
        }

        @Override
        public VarHandle get(int index) {
            return vars[index];
        }

        @Override
        public int size() {
            return vars.length;
        }
    }

    @Override
    public String toString() {
        return "operator '" + name() + "'";
    }
}
