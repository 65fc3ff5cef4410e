package org.depengine.benchmarks.workload;

import java.util.Objects;

/**
 * An op list with what every contender shares: its dependency graph (for the baselines), the body
 * each op runs, the effects the bodies leave, and the expected effects of a serial run. A contender
 * calls {@link #beforeRun()} at the start of each run; {@link #verify} compares the effects of the
 * last run with the serial oracle.
 *
 * <p>The default body ({@link #cpu}) spins for the op's calibrated work, then applies its effect.
 */
public final class Workload {
    private final OpList ops;
    private final DepGraph graph;
    private final Effects effects;
    private final long[] expected;
    private OpBody body;

    private Workload(OpList ops) {
        this.ops = ops;
        this.graph = DepGraph.of(ops);
        this.effects = new Effects(ops);
        this.expected = Effects.oracle(ops);
    }

    /** A workload whose ops spin for their nominal work, then apply their effect. */
    public static Workload cpu(OpList ops) {
        Workload w = new Workload(ops);
        long[] iterations = new long[ops.size()];
        for (int i = 0; i < iterations.length; i++) {
            iterations[i] = Spin.iterationsFor(ops.workNanos(i));
        }
        Effects e = w.effects;
        w.body = (op, stream) -> {
            long it = iterations[op];
            if (it != 0) {
                Spin.consume(Spin.run(it));
            }
            e.apply(op);
        };
        return w;
    }

    /**
     * A workload with a body of its own; the body should call {@link #effects()}{@code .apply(op)} so
     * that the run can be verified.
     */
    public static Workload custom(OpList ops, java.util.function.Function<Workload, OpBody> bodyFactory) {
        Workload w = new Workload(ops);
        w.body = Objects.requireNonNull(bodyFactory.apply(w), "body");
        return w;
    }

    /** The op list. */
    public OpList ops() {
        return ops;
    }

    /** The dependency graph of the op list. */
    public DepGraph graph() {
        return graph;
    }

    /** The body every op runs. */
    public OpBody body() {
        return body;
    }

    /** The effects of the current run. */
    public Effects effects() {
        return effects;
    }

    /** Resets the effects: called by every contender at the start of each run. */
    public void beforeRun() {
        effects.reset();
    }

    /**
     * Checks the effects of the last run against a serial run of the same ops.
     *
     * @throws IllegalStateException naming the contender and the first wrong variable
     */
    public void verify(String contender) {
        String diff = effects.diff(expected);
        if (diff != null) {
            throw new IllegalStateException(contender + " on " + ops + " produced a wrong result: " + diff
                    + ". Its timings are meaningless; fix the contender first.");
        }
    }
}
