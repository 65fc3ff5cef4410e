package org.depengine.examples;

import java.util.List;
import java.util.concurrent.Callable;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.FnProperty;
import org.depengine.api.VarHandle;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * The design notes' first example: A = 2; B = A + 1; C = A + 2; D = B × C. B and C both only read A,
 * so the engine runs them at the same time; D waits for both. Prints D and when B and C ran.
 *
 * <p>Usage: {@code DependencyBasics [--engine NAME] [--help]}.
 */
@Command(name = "DependencyBasics", sortOptions = false,
        description = {"Computes A = 2; B = A + 1; C = A + 2; D = B * C with one op each, and shows that",
                "B and C (which only read A) ran at the same time."})
public final class DependencyBasics implements Callable<Integer> {
    @Mixin
    private CommonOptions common = new CommonOptions();

    private DependencyBasics() {
    }

    /** Entry point: see {@link Cli} for the exit status. */
    public static void main(String[] args) {
        System.exit(Cli.run(new DependencyBasics(), args));
    }

    @Override
    public Integer call() {
        String engineName = common.engine;
        long t0 = System.nanoTime();
        double[] value = new double[4];
        long[][] window = new long[4][2];
        String[] thread = new String[4];
        try (Engine engine = Engine.create(engineName)) {
            VarHandle a = engine.newVariable("A");
            VarHandle b = engine.newVariable("B");
            VarHandle c = engine.newVariable("C");
            VarHandle d = engine.newVariable("D");
            Context cpu = Context.cpu();
            engine.pushSync(ctx -> value[0] = 2, cpu, List.of(), List.of(a), FnProperty.NORMAL, 0, "A = 2");
            engine.pushSync(ctx -> value[1] = timed(1, value[0] + 1, window, thread), cpu, List.of(a), List.of(b),
                    FnProperty.NORMAL, 0, "B = A + 1");
            engine.pushSync(ctx -> value[2] = timed(2, value[0] + 2, window, thread), cpu, List.of(a), List.of(c),
                    FnProperty.NORMAL, 0, "C = A + 2");
            engine.pushSync(ctx -> value[3] = value[1] * value[2], cpu, List.of(b, c), List.of(d),
                    FnProperty.NORMAL, 0, "D = B * C");
            engine.waitForVar(d);
            System.out.printf("engine: %s%n", engine.name());
            System.out.printf("A = %.0f, B = %.0f, C = %.0f%n", value[0], value[1], value[2]);
            System.out.printf("D = %.0f%n", value[3]);
            for (int k = 1; k <= 2; k++) {
                System.out.printf("%s ran on %s from %.1f ms to %.1f ms%n", k == 1 ? "B" : "C", thread[k],
                        (window[k][0] - t0) / 1e6, (window[k][1] - t0) / 1e6);
            }
            boolean overlap = Math.max(window[1][0], window[2][0]) < Math.min(window[1][1], window[2][1]);
            System.out.println(overlap ? "B and C ran at the same time" : "B and C ran one after the other"
                    + ("naive".equals(engine.name()) ? " (the naive engine runs every op on the pushing thread)" : ""));
        }
        return 0;
    }

    /** Busy for ~30 ms so that the overlap is visible, then returns {@code result}. */
    private static double timed(int k, double result, long[][] window, String[] thread) {
        thread[k] = Thread.currentThread().getName();
        window[k][0] = System.nanoTime();
        long until = window[k][0] + 30_000_000L;
        while (System.nanoTime() < until) {
            Thread.onSpinWait();
        }
        window[k][1] = System.nanoTime();
        return result;
    }
}
