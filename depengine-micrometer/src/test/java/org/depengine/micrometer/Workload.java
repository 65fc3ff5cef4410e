package org.depengine.micrometer;

import org.depengine.api.Capture;
import org.depengine.api.Engine;
import org.depengine.api.Graph;
import org.depengine.api.VarHandle;

/** A workload whose op counts are known: 10 ops, a wait, one failing op, 3 skipped, 3 replays of 2 ops. */
final class Workload {
    static final int PUSHED = 20;
    static final int FAILED = 1;
    static final int SKIPPED = 3;
    static final int REPLAYED = 6;

    private Workload() {
    }

    /** Pushes the workload; the caller waits (its waitForAll reports the failure). */
    static void run(Engine e) {
        VarHandle a = e.newVariable("a");
        VarHandle b = e.newVariable("b");
        VarHandle c = e.newVariable("c");
        for (int i = 0; i < 10; i++) {
            e.op("write a").writes(a).run(ctx -> { });
        }
        e.waitForVar(a);
        e.op("boom").writes(b).run(ctx -> {
            throw new IllegalStateException("boom");
        });
        for (int i = 0; i < 3; i++) {
            e.op("after boom").reads(b).writes(c).run(ctx -> { });
        }
        Graph step;
        try (Capture cap = e.capture()) {
            e.op("step 1").writes(a).run(ctx -> { });
            e.op("step 2").writes(a).run(ctx -> { });
            step = cap.graph();
        }
        for (int i = 0; i < 3; i++) {
            step.replay();
        }
    }
}
