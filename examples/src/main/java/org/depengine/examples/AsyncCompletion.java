package org.depengine.examples;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.CompletableFuture;
import org.depengine.api.Engine;
import org.depengine.api.FnProperty;
import org.depengine.api.VarHandle;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * An {@code AsyncFn} hands its work to another thread and returns; that thread completes the op
 * later through its callback, and the op that reads the result still runs after it. The program
 * then chains host work onto the result with {@link Engine#whenReady}, without blocking on it.
 *
 * <p>Usage: {@code AsyncCompletion [--engine NAME] [--help]}.
 */
@Command(name = "AsyncCompletion", sortOptions = false, description = {
    "An async op hands its work to another thread, which completes it; the op that reads",
    "its result runs after it."})
public final class AsyncCompletion implements Callable<Integer> {
    @Mixin
    private CommonOptions common = new CommonOptions();

    private AsyncCompletion() {
    }

    /** Entry point: see {@link Cli} for the exit status. */
    public static void main(String[] args) {
        System.exit(Cli.run(new AsyncCompletion(), args));
    }

    @Override
    public Integer call() {
        // The "elsewhere": a thread of this program's own, standing in for an I/O library or a device
        // driver's callback thread. The op's function hands it the work and returns at once.
        ExecutorService elsewhere = Executors.newSingleThreadExecutor(r -> new Thread(r, "sum-worker"));
        try (Engine engine = Engine.create(common.engine)) {
            VarHandle result = engine.newVariable("result");
            long[] value = {0};
            String[] startedOn = {null};
            String[] completedOn = {null};
            engine.op("sum 1..1000 elsewhere").writes(result).property(FnProperty.ASYNC).runAsync((ctx, onComplete) -> {
                startedOn[0] = Thread.currentThread().getName();
                elsewhere.execute(() -> {
                    try {
                        long s = 0;
                        for (int i = 1; i <= 1000; i++) {
                            s += i;
                        }
                        value[0] = s;
                        completedOn[0] = Thread.currentThread().getName();
                        onComplete.complete(); // from sum-worker: the op completes here, not when its function returned
                    } catch (RuntimeException | Error e) {
                        onComplete.fail(e);
                    }
                });
            });
            VarHandle doubled = engine.newVariable("doubled");
            long[] twice = {0};
            engine.op("double it").reads(result).writes(doubled).run(ctx -> twice[0] = 2 * value[0]);
            // Host work chained onto the engine's result without blocking a thread on it.
            CompletableFuture<String> report = engine.whenReady(doubled)
                    .thenApply(x -> "doubled by the dependent op: " + twice[0]);
            System.out.println("the async op's function ran on thread " + startedOn[0]);
            System.out.println(report.join());
            System.out.println("async result " + value[0] + " completed on thread " + completedOn[0]);
        } finally {
            elsewhere.shutdown();
        }
        return 0;
    }
}
