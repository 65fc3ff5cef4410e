package org.depengine.core.tracker;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.depengine.api.Context;
import org.depengine.api.FnProperty;
import org.depengine.api.SyncFn;
import org.depengine.api.listen.OpInfo;
import org.depengine.api.listen.OpListener;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.junit.jupiter.api.Test;

/**
 * Lincheck: one {@link Var} under concurrent pushers (register: readLocked, writeLocked) and completers
 * (completeRead, completeWrite) is linearizable with respect to {@link VarModel}.
 *
 * <p>What is observed is each grant (the variable letting an op run), attributed to the call whose
 * monitor step made it: a push reports whether its op could run at once, a completion reports the
 * ops it let run. Grants made by a completion are seen through the completing op's listener
 * ({@code released}), which runs before the grant's counter decrement; a push's own grant is its push
 * guard reaching zero with no completion having reported it.
 *
 * <p>The harness: pushes register as the engine does ({@link OpBlock#register()}) under a lock of the
 * harness's own, which hands out the ids in push order; completions take a lock of their own, so the
 * several grants of one completion (a batch of readers) are seen together. What races is a push
 * against a completion, inside {@link Var}: the append against the detached release walk, the
 * reader count against a waiting write. Multi-variable ops are checked by {@link TrackerModelCheckTest}.
 */
@Param(name = "id", gen = IntGen.class, conf = "0:5")
public class VarLinearizabilityTest {
    private static final int MAX_OPS = 64;
    private static final Var[] NONE = new Var[0];

    private final Object owner = new Object();
    private final Var var = new Var(owner, "v");
    private final Object registration = new Object();
    private final Object completions = new Object();
    private final AtomicReferenceArray<OpBlock> ops = new AtomicReferenceArray<>(MAX_OPS);
    private final AtomicIntegerArray writes = new AtomicIntegerArray(MAX_OPS);
    private final AtomicIntegerArray granted = new AtomicIntegerArray(MAX_OPS);
    private final AtomicIntegerArray completed = new AtomicIntegerArray(MAX_OPS);
    private int nextId; // guarded by registration
    private List<Integer> releasedByCurrentCompletion; // guarded by completions

    /** Lincheck makes one instance per run. */
    public VarLinearizabilityTest() {
    }

    private final OpListener listener = new OpListener() {
        @Override
        public void released(OpInfo producer, OpInfo consumer) {
            int id = (int) consumer.id();
            granted.set(id, 1);
            releasedByCurrentCompletion.add(id); // only completions release, under the completions lock
        }
    };

    private final OpHost host = new IdleOpHost(); // ops are granted and completed directly on the variable

    private OpBlock newOp(int id, boolean write) {
        SyncFn fn = ctx -> { };
        Var[] one = {var};
        OpDef def = new OpDef(owner, fn, write ? NONE : one, write ? one : NONE, FnProperty.NORMAL, "op" + id, OpDef.Kind.USER);
        return new OpBlock(def, host, Context.cpu(), 0, false, id, listener, null, null);
    }

    /** Registers a read; returns {@code id * 2 + (1 if it may run at once)}. */
    @Operation
    public int read() {
        return push(false);
    }

    /** Registers a write; returns {@code id * 2 + (1 if it may run at once)}. */
    @Operation
    public int write() {
        return push(true);
    }

    private int push(boolean write) {
        synchronized (registration) {
            int id = nextId++;
            OpBlock op = newOp(id, write);
            writes.set(id, write ? 1 : 0);
            ops.set(id, op);
            if (op.register() != null) {
                throw new AssertionError("a live variable refused a registration");
            }
            // Guard at zero and no completion reported the grant: the append itself granted it.
            boolean now = op.dropGuard() && granted.get(id) == 0;
            if (now) {
                granted.set(id, 1);
            }
            return id * 2 + (now ? 1 : 0);
        }
    }

    /** Completes op {@code id} if it is running: the ids it let run, in order; "-" if it was not running. */
    @Operation
    public String complete(@Param(name = "id") int id) {
        synchronized (completions) {
            OpBlock op = ops.get(id);
            if (op == null || granted.get(id) == 0 || completed.get(id) == 1) {
                return "-";
            }
            completed.set(id, 1);
            List<Integer> released = new ArrayList<>();
            releasedByCurrentCompletion = released;
            if (writes.get(id) == 1) {
                var.completeWrite(op, null, false);
            } else {
                var.completeRead(op, false);
            }
            releasedByCurrentCompletion = null;
            Collections.sort(released);
            return released.toString();
        }
    }

    /** Completed writes. */
    @Operation
    public long version() {
        return var.version();
    }

    @Test
    void modelChecking() {
        new ModelCheckingOptions()
                .iterations(6 * TrackerModelCheckTest.scale())
                .invocationsPerIteration(250)
                .threads(3)
                .actorsPerThread(3)
                .actorsBefore(3)
                .actorsAfter(2)
                .sequentialSpecification(VarModel.class)
                .check(VarLinearizabilityTest.class);
    }

    @Test
    void stress() {
        new StressOptions()
                .iterations(6 * TrackerModelCheckTest.scale())
                .invocationsPerIteration(2_000)
                .threads(3)
                .actorsPerThread(3)
                .actorsBefore(3)
                .actorsAfter(2)
                .sequentialSpecification(VarModel.class)
                .check(VarLinearizabilityTest.class);
    }
}
