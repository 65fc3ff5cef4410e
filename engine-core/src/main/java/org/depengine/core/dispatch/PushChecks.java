package org.depengine.core.dispatch;

import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.depengine.api.FnProperty;
import org.depengine.api.OprHandle;
import org.depengine.api.SyncFn;
import org.depengine.api.VarHandle;
import org.depengine.core.tracker.OpDef;
import org.depengine.core.tracker.Var;

/**
 * The checks a push makes before anything is registered: the variables and operators belong to this
 * engine and are not deleted, the variable lists hold no null, a variable is not both read and written.
 * Each failure names the argument and what to do. Also turns the user's variable lists into the
 * de-duplicated arrays an {@link OpDef} holds. Stateless apart from its engine; any thread.
 */
public final class PushChecks {
    /** No variables (shared: do not modify). */
    public static final Var[] NO_VARS = new Var[0];
    /** Up to this many variables a linear scan de-duplicates faster than a hash set. */
    private static final int LINEAR_DEDUP_LIMIT = 32;

    private final Object engine;

    /** The checks of {@code engine}'s pushes (the owner of its variables and operators). */
    public PushChecks(Object engine) {
        this.engine = engine;
    }

    /** A user op's definition from the push arguments, validated. */
    public OpDef define(Object fn, List<VarHandle> constVars, List<VarHandle> mutableVars, FnProperty prop, String opName) {
        Var[] reads = toVars(constVars, "constVars", opName);
        Var[] writes = toVars(mutableVars, "mutableVars", opName);
        Objects.requireNonNull(prop, "prop");
        long readBits = writes.length == 0 ? 0 : bits(reads);
        for (Var w : writes) {
            if ((readBits & bit(w)) != 0 && indexOf(reads, reads.length, w) >= 0) {
                throw new IllegalArgumentException(w + " is listed in both constVars and mutableVars of op '"
                        + (opName == null ? "<unnamed>" : opName) + "'; list it only in mutableVars (a write may also read)");
            }
        }
        return new OpDef(engine, fn, reads, writes, prop, opName, OpDef.Kind.USER);
    }

    /**
     * The definition of {@code deleteVariable(deleteFn, ctx, var)}: a write of {@code var}.
     *
     * @throws IllegalStateException if the variable was already deleted
     */
    public OpDef deletion(SyncFn deleteFn, VarHandle var) {
        Var v = ownVar(var, "var");
        if (v.isDeleted()) {
            throw new IllegalStateException(v + " was already deleted; delete a variable once");
        }
        return new OpDef(engine, deleteFn, NO_VARS, v.alone(), FnProperty.DELETE_VAR,
                "deleteVariable(" + v.name() + ")", OpDef.Kind.DELETE_VAR);
    }

    /** A definition made by {@code newOperator}, checked again at each push: it and its variables are live. */
    public OpDef pushable(OprHandle op) {
        OpDef def = ownOperator(op);
        if (def.isDeleted()) {
            throw new IllegalStateException(def + " was deleted; it cannot be pushed any more (make a new one with newOperator)");
        }
        for (Var v : def.reads()) {
            v.requireLive(def.name());
        }
        for (Var v : def.writes()) {
            v.requireLive(def.name());
        }
        return def;
    }

    private Var[] toVars(List<VarHandle> list, String arg, String opName) {
        Objects.requireNonNull(list, arg);
        int n = list.size();
        if (n == 0) {
            return NO_VARS;
        }
        if (n == 1) {
            return checked(list.get(0), arg, 0, opName).alone(); // the common case: no array made
        }
        Var[] out = new Var[n];
        Map<Var, Boolean> seen = n > LINEAR_DEDUP_LIMIT ? new IdentityHashMap<>(n * 2) : null;
        long taken = 0; // the bits of the variables in out: a variable whose bit is clear is not there
        int k = 0;
        for (int i = 0; i < n; i++) {
            Var v = checked(list.get(i), arg, i, opName);
            boolean dup;
            if (seen != null) {
                dup = seen.put(v, Boolean.TRUE) != null;
            } else {
                long b = bit(v);
                dup = (taken & b) != 0 && indexOf(out, k, v) >= 0;
                taken |= b;
            }
            if (!dup) {
                out[k++] = v;
            }
        }
        return k == n ? out : Arrays.copyOf(out, k);
    }

    /**
     * A one-bit summary of a variable for the duplicate checks: two variables with different bits are
     * different, so only a variable whose bit is already taken is searched for (the pairwise scan made
     * a push of 19 variables compare 171 pairs).
     */
    private static long bit(Var v) {
        return 1L << v.lockOrder(); // the shift takes the order modulo 64
    }

    private static long bits(Var[] vars) {
        long b = 0;
        for (Var v : vars) {
            b |= bit(v);
        }
        return b;
    }

    /** {@code h}, the {@code i}-th element of {@code arg}, as a live variable of this engine. */
    private Var checked(VarHandle h, String arg, int i, String opName) {
        if (h == null) {
            throw new NullPointerException(arg + "[" + i + "] is null");
        }
        if (!(h instanceof Var) || ((Var) h).owner() != engine) {
            ownVar(h, arg + "[" + i + "]"); // throws, naming the argument (built only here: pushes are hot)
        }
        Var v = (Var) h;
        v.requireLive(opName == null ? "<unnamed>" : opName);
        return v;
    }

    private static int indexOf(Var[] vars, int len, Var v) {
        for (int i = 0; i < len; i++) {
            if (vars[i] == v) {
                return i;
            }
        }
        return -1;
    }

    /**
     * {@code h} as this engine's variable.
     *
     * @param arg the argument's name, for the message
     * @throws IllegalArgumentException if it belongs to another engine
     */
    public Var ownVar(VarHandle h, String arg) {
        Objects.requireNonNull(h, arg);
        if (!(h instanceof Var) || ((Var) h).owner() != engine) {
            throw new IllegalArgumentException(arg + " (" + h.name() + ") belongs to another engine; use variables made by this engine's newVariable()");
        }
        return (Var) h;
    }

    /**
     * {@code h} as this engine's operator.
     *
     * @throws IllegalArgumentException if it belongs to another engine
     */
    public OpDef ownOperator(OprHandle h) {
        Objects.requireNonNull(h, "op");
        if (!(h instanceof OpDef) || ((OpDef) h).owner() != engine) {
            throw new IllegalArgumentException("operator '" + h.name() + "' belongs to another engine; use operators made by this engine's newOperator()");
        }
        return (OpDef) h;
    }

}
