package org.depengine.engine.perdevice;

import java.util.List;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.FnProperty;

/** A program whose process-wide engine holds an async op that never completes when main returns. */
public final class ExitWithStuckOp {
    private ExitWithStuckOp() {
    }

    /** Pushes one completed op and one that never completes, then returns. */
    public static void main(String[] args) {
        Engine e = Engine.get();
        e.pushSync(ctx -> { }, Context.cpu(), List.of(), List.of(e.newVariable("done")));
        e.pushAsync((ctx, onComplete) -> { }, Context.cpu(), List.of(), List.of(e.newVariable("stuck")),
                FnProperty.NORMAL, 0, "never-completes");
    }
}
