package org.depengine.examples;

import java.util.Arrays;
import java.util.List;
import org.depengine.api.AsyncFn;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.FnProperty;
import org.depengine.api.OprHandle;
import org.depengine.api.VarHandle;

/**
 * One operator made with {@code newOperator} and pushed many times, against {@code pushAsync} with the
 * same function and variables each time. A reusable operator has its variable lists checked and
 * de-duplicated once, when it is made; {@code pushAsync} makes a temporary operator on every call.
 * Prints what one push costs each way, measured here, and checks that every push ran.
 *
 * <p>Usage: {@code OperatorReuse [--engine naive|pooled|perdevice] [--ops N] [--rounds N] [--help]}.
 */
public final class OperatorReuse {
    private static final int WARMUP_ROUNDS = 2;

    private OperatorReuse() {
    }

    /** Entry point. */
    public static void main(String[] args) {
        Args parsed = Args.parse(args, "--ops", "--rounds");
        if (parsed.help) {
            System.out.println("usage: OperatorReuse [--engine naive|pooled|perdevice] [--ops N] [--rounds N]\n"
                    + "Pushes one operator made with newOperator N times (default 20000) per round, and the same\n"
                    + "function with pushAsync N times; prints the median cost per push of each over the rounds\n"
                    + "(default 5, after " + WARMUP_ROUNDS + " warm-up rounds) and checks that every push ran.");
            return;
        }
        int ops = parsed.intOption("--ops", 20_000, 1, 10_000_000);
        int rounds = parsed.intOption("--rounds", 5, 1, 1000);
        try (Engine engine = Engine.create(parsed.engine)) {
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
