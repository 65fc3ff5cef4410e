package org.depengine.core.bulk;

import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.Map;
import org.depengine.core.tracker.OpDef;
import org.depengine.core.tracker.Var;

/**
 * The variables of ops merged into one op (a bulk's members; a replay run as one op, in
 * {@code core.replay}), each in first-seen order: every variable a member writes is a write of the
 * merged op; every variable members only read is a read. A variable that more than one member writes
 * is an extra write: the merged op's completion counts one write of it, so its body counts the others
 * ({@link Var#countWrites}), and {@link Var#version()} still counts every member's write.
 *
 * @param reads the merged op's reads, disjoint from its writes
 * @param writes the merged op's writes
 * @param extraWriteVars the variables more than one member writes
 * @param extraWrites for each of those, the members' writes beyond one
 */
public record MergedVars(Var[] reads, Var[] writes, Var[] extraWriteVars, int[] extraWrites) {
    /** The merged variables of {@code members}. */
    public static MergedVars of(OpDef[] members) {
        VarCounts writes = new VarCounts();
        for (OpDef m : members) {
            for (Var w : m.writes()) {
                writes.add(w);
            }
        }
        VarCounts reads = new VarCounts();
        for (OpDef m : members) {
            for (Var r : m.reads()) {
                if (!writes.contains(r)) {
                    reads.add(r);
                }
            }
        }
        int extra = 0;
        for (int i = 0; i < writes.size; i++) {
            if (writes.counts[i] > 1) {
                extra++;
            }
        }
        Var[] extraVars = new Var[extra];
        int[] extraCounts = new int[extra];
        int k = 0;
        for (int i = 0; i < writes.size; i++) {
            if (writes.counts[i] > 1) {
                extraVars[k] = writes.vars[i];
                extraCounts[k++] = writes.counts[i] - 1;
            }
        }
        return new MergedVars(reads.toArray(), writes.toArray(), extraVars, extraCounts);
    }

    /**
     * Distinct variables in first-seen order with a count each: a linear scan while small (a bulk's
     * members usually share a few variables), an identity map beyond.
     */
    private static final class VarCounts {
        private static final int LINEAR_LIMIT = 32;
        Var[] vars = new Var[8];
        int[] counts = new int[8];
        int size;
        private Map<Var, Integer> index; // position in vars, once past LINEAR_LIMIT

        private int indexOf(Var v) {
            if (index != null) {
                Integer i = index.get(v);
                return i == null ? -1 : i;
            }
            for (int i = 0; i < size; i++) {
                if (vars[i] == v) {
                    return i;
                }
            }
            return -1;
        }

        boolean contains(Var v) {
            return indexOf(v) >= 0;
        }

        void add(Var v) {
            int i = indexOf(v);
            if (i >= 0) {
                counts[i]++;
                return;
            }
            if (size == vars.length) {
                vars = Arrays.copyOf(vars, size * 2);
                counts = Arrays.copyOf(counts, size * 2);
            }
            vars[size] = v;
            counts[size] = 1;
            if (index != null) {
                index.put(v, size);
            } else if (size + 1 > LINEAR_LIMIT) {
                index = new IdentityHashMap<>(size * 4);
                for (int j = 0; j <= size; j++) {
                    index.put(vars[j], j);
                }
            }
            size++;
        }

        Var[] toArray() {
            return Arrays.copyOf(vars, size);
        }
    }
}
