package org.depengine.core.tracker;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * A recorded graph's registered accesses (those its {@link ReplayLinks} do not skip), grouped by
 * variable: what each replay appends to each variable's queue, in graph order. Made once per graph
 * at capture; immutable and shared by every replay. {@link Registration#registerReplay} appends a
 * variable's accesses in one hold of its lock when the replay registers alone, so no other push can
 * come between the graph's first and last write of it.
 */
public final class ReplayRegistrations {
    final Var[] vars;       // every variable of the graph once, in ascending Var#lockOrder
    final int[][] accesses; // per variable: op index * 2, plus 1 for a write; registered accesses only, in graph order

    /**
     * @param defs the graph's ops, in order
     * @param links their links (which accesses are skipped), index for index
     * @param lockOrder every variable the ops use, once, in ascending {@link Var#lockOrder()}
     */
    public ReplayRegistrations(OpDef[] defs, ReplayLinks[] links, Var[] lockOrder) {
        this.vars = lockOrder.clone();
        Map<Var, List<Integer>> byVar = new IdentityHashMap<>();
        for (Var v : vars) {
            byVar.put(v, new ArrayList<>());
        }
        for (int i = 0; i < defs.length; i++) {
            Var[] reads = defs[i].reads();
            Var[] writes = defs[i].writes();
            for (int k = 0; k < reads.length; k++) {
                if (!links[i].skipped(k)) {
                    byVar.get(reads[k]).add(i * 2);
                }
            }
            for (int k = 0; k < writes.length; k++) {
                if (!links[i].skipped(reads.length + k)) {
                    byVar.get(writes[k]).add(i * 2 + 1);
                }
            }
        }
        this.accesses = new int[vars.length][];
        for (int k = 0; k < vars.length; k++) {
            accesses[k] = byVar.get(vars[k]).stream().mapToInt(Integer::intValue).toArray();
        }
    }

    /** Every variable of the graph once, in ascending {@link Var#lockOrder()} (a copy). */
    public Var[] lockOrder() {
        return vars.clone();
    }
}
