package org.depengine.core.tracker;

import java.util.ArrayList;
import java.util.List;

/**
 * The sequential specification of one variable's dependency queue, written from the contract and not
 * from {@link Var}'s code: ops register in order; a read may run once every write registered before it
 * has completed; a write may run once every op registered before it has completed. Lincheck checks
 * {@link VarLinearizabilityTest} against it; the operations mirror that test's.
 */
public class VarModel {
    private static final class Op {
        final boolean write;
        boolean granted;
        boolean completed;

        Op(boolean write) {
            this.write = write;
        }
    }

    private final List<Op> ops = new ArrayList<>();

    /** Lincheck makes one instance per run. */
    public VarModel() {
    }

    /** Registers a read; returns {@code id * 2 + (1 if it may run at once)}. */
    public int read() {
        return push(false);
    }

    /** Registers a write; returns {@code id * 2 + (1 if it may run at once)}. */
    public int write() {
        return push(true);
    }

    private int push(boolean write) {
        int id = ops.size();
        Op op = new Op(write);
        ops.add(op);
        op.granted = mayRun(id);
        return id * 2 + (op.granted ? 1 : 0);
    }

    /** Completes op {@code id} if it is running: the ids it let run, in order; "-" if it was not running. */
    public String complete(int id) {
        if (id >= ops.size() || !ops.get(id).granted || ops.get(id).completed) {
            return "-";
        }
        ops.get(id).completed = true;
        List<Integer> released = new ArrayList<>();
        for (int i = 0; i < ops.size(); i++) {
            Op op = ops.get(i);
            if (!op.granted && mayRun(i)) {
                op.granted = true;
                released.add(i);
            }
        }
        return released.toString();
    }

    /** Completed writes. */
    public long version() {
        return ops.stream().filter(o -> o.write && o.completed).count();
    }

    private boolean mayRun(int id) {
        boolean write = ops.get(id).write;
        for (int i = 0; i < id; i++) {
            Op earlier = ops.get(i);
            if (!earlier.completed && (write || earlier.write)) {
                return false;
            }
        }
        return true;
    }
}
