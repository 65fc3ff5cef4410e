package org.depengine.examples;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import org.depengine.api.AsyncFn;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.FnProperty;
import org.depengine.api.OprHandle;
import org.depengine.api.VarHandle;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * One operator made with {@code newOperator} and pushed many times, against {@code pushAsync} with the
 * same function and variables each time. A reusable operator has its variable lists checked and
 * de-duplicated once, when it is made; {@code pushAsync} makes a temporary operator on every call.
 * Prints what one push costs each way, measured here, and checks that every push ran.
 *
 * <p>Usage: {@code OperatorReuse [--engine NAME] [--ops N] [--rounds N] [--help]}.
 */
@Command(name = "OperatorReuse", sortOptions = false, description = {
    "Pushes one operator made with newOperator N times per round, and the same function with",
    "pushAsync N times; prints the median cost per push of each over the rounds (after warm-up",
    "rounds) and checks that every push ran."})
public final class OperatorReuse implements Callable<Integer> {
    private static final int WARMUP_ROUNDS = 2;

    @Mixin
    private CommonOptions common = new CommonOptions();
    @Option(names = "--ops", paramLabel = "N", description = "Pushes per round each way, 1..10000000 (default: ${DEFAULT-VALUE}).")
    private int ops = 20_000;
    @Option(names = "--rounds", paramLabel = "N", description = "Measured rounds, 1..1000 (default: ${DEFAULT-VALUE}).")
    private int rounds = 5;

    private OperatorReuse() {
    }

    /** Entry point: see {@link Cli} for the exit status. */
    public static void main(String[] args) {
        System.exit(Cli.run(new OperatorReuse(), args));
    }

    @Override
    public Integer call() {
        Cli.inRange("--ops", ops, 1, 10_000_000);
        Cli.inRange("--rounds", rounds, 1, 1000);
        try (Engine engine = Engine.create(common.engine)) {
            VarHandle step = engine.newVariable("step");
            VarHandle sum = engine.newVariable("sum");
            List<VarHandle> reads = List.of(step);
            List<VarHandle> writes = List.of(sum);
            long[] state = {1, 0, 0}; // step, sum, runs: written only by ops, in push order (they all write "sum")
            AsyncFn add = (ctx, done) -> {
                state[1] += state[0];
                state[2]++;
                done.complete();
            };
            Context cpu = Context.cpu();
            OprHandle op = engine.newOperator(add, reads, writes, FnProperty.NORMAL, "add");

            Way reuse = new Way("newOperator + push", rounds);
            Way temp = new Way("pushAsync each time", rounds);
            for (int r = 0; r < WARMUP_ROUNDS + rounds; r++) {
                int slot = r - WARMUP_ROUNDS; // negative: a warm-up round, not recorded
                // Alternate which way goes first, so neither always runs on a warmer machine.
                for (int k = 0; k < 2; k++) {
                    boolean reusing = (r + k) % 2 == 0;
                    Way way = reusing ? reuse : temp;
                    long before = state[1];
                    long runsBefore = state[2];
                    long t0 = System.nanoTime();
                    for (int i = 0; i < ops; i++) {
                        if (reusing) {
                            engine.push(op, cpu, 0, false);
                        } else {
                            engine.pushAsync(add, cpu, reads, writes, FnProperty.NORMAL, 0, "add");
                        }
                    }
                    long t1 = System.nanoTime();
                    engine.waitForVar(sum);
                    long t2 = System.nanoTime();
                    way.record(slot, (t1 - t0) / (double) ops, (t2 - t0) / (double) ops,
                            state[2] - runsBefore, state[1] - before, ops);
                }
            }
            engine.deleteOperator(op);
            engine.waitForAll();

            System.out.println("engine: " + engine.name());
            System.out.printf("%d pushes per round, %d rounds after %d warm-up rounds%n", ops, rounds, WARMUP_ROUNDS);
            int total = ops * (WARMUP_ROUNDS + rounds);
            for (Way w : List.of(reuse, temp)) {
                System.out.printf("%-20s: ran %d of %d times, sums correct: %s%n", w.name, w.runs, total,
                        w.allCorrect ? "yes" : "NO");
            }
            System.out.println("median cost per push:");
            for (Way w : List.of(reuse, temp)) {
                System.out.printf("  %-20s: %8.0f ns to push, %8.0f ns to push and run%n", w.name,
                        median(w.pushNanos), median(w.totalNanos));
            }
            double saved = 1 - median(reuse.pushNanos) / median(temp.pushNanos);
            System.out.printf("reusing the operator %s %.0f%% of the push cost%n", saved >= 0 ? "saves" : "adds",
                    Math.abs(saved) * 100);
        }
        return 0;
    }

    /** One way of pushing: its per-round costs and whether every round ran and summed right. */
    private static final class Way {
        final String name;
        final double[] pushNanos;
        final double[] totalNanos;
        long runs;
        boolean allCorrect = true;

        Way(String name, int rounds) {
            this.name = name;
            this.pushNanos = new double[rounds];
            this.totalNanos = new double[rounds];
        }

        void record(int slot, double push, double total, long ran, long added, int expected) {
            runs += ran;
            allCorrect &= ran == expected && added == expected; // each run adds step = 1
            if (slot >= 0) {
                pushNanos[slot] = push;
                totalNanos[slot] = total;
            }
        }
    }

    private static double median(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        int n = v.length;
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }
}
