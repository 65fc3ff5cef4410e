package org.depengine.examples;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.FnProperty;
import org.depengine.api.VarHandle;

/**
 * An {@code AsyncFn} hands its work to a {@link CompletableFuture} and completes later, from another
 * thread; the op that reads its result still runs after it.
 *
 * <p>Usage: {@code AsyncCompletion [--engine naive|pooled|perdevice] [--help]}.
 */
public final class AsyncCompletion {
    private AsyncCompletion() {
    }

    /** Entry point. */
    public static void main(String[] args) {
        Args parsed = Args.parse(args);
        if (parsed.help) {
            System.out.println("usage: AsyncCompletion [--engine naive|pooled|perdevice]\n"
                    + "An async op completes from a CompletableFuture's thread; its reader runs after it.");
            return;
        }
        try (Engine engine = Engine.create(parsed.engine)) {
            VarHandle result = engine.newVariable("result");
            long[] value = {0};
            String[] completedOn = {null};
            engine.pushAsync((ctx, onComplete) -> CompletableFuture.supplyAsync(() -> {
                long s = 0;
                for (int i = 1; i <= 1000; i++) {
                    s += i;
                }
                return s;
            }).whenComplete((s, error) -> {
                if (error != null) {
                    onComplete.fail(error);
                } else {
                    value[0] = s;
                    completedOn[0] = Thread.currentThread().getName();
                    onComplete.complete();
                }
            }), Context.cpu(), List.of(), List.of(result), FnProperty.ASYNC, 0, "sum 1..1000 elsewhere");
            VarHandle doubled = engine.newVariable("doubled");
            long[] twice = {0};
            engine.pushSync(ctx -> twice[0] = 2 * value[0], Context.cpu(), List.of(result), List.of(doubled));
            engine.waitForVar(doubled);
            System.out.println("async result " + value[0] + " completed on thread " + completedOn[0]);
            System.out.println("doubled by the dependent op: " + twice[0]);
        }
    }
}
