package org.depengine.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.depengine.api.Capture;
import org.depengine.api.Context;
import org.depengine.api.EngineException;
import org.depengine.api.FnProperty;
import org.depengine.api.Graph;
import org.depengine.api.VarHandle;
import org.junit.jupiter.api.Test;

/**
 * Replays of randomized graphs whose ops fail, against a serial model of the failure and skip rules:
 * the values, every variable's {@code version()}, and which variables carry a failure at the end.
 * The graphs are synchronous CPU ops of one context, chains (each op conflicts with the one before it)
 * and DAGs, the kinds an engine may replay as one op ({@code naive}: any; the others: a chain); other
 * threads replay their own graphs meanwhile, reading a shared variable. In a configuration with a
 * listener the same graphs replay op by op, so both ways meet one model. With
 * {@code -Ddepengine.test.long=true} more seeds and longer graphs run.
 */
public abstract class ReplayFailuresConformance extends EngineTestBase {

    private static boolean longForm() {
        return Boolean.getBoolean("depengine.test.long");
    }

    /** One thread's graph over its own variables: its ops, which of them fail in which replay, and the model. */
    private final class Program {
        final List<RandomWorkload.Op> ops;
        final int[][] reads;       // per op: the workload's reads, plus, in a chain, the write of the op before
        final boolean[] noSkip;
        final long seed;
        final int replays;
        final double[] data;
        final VarHandle[] vars;
        final VarHandle shared;
        final Queue<Long> ranLog = new ConcurrentLinkedQueue<>(); // replay × 100,000 + index of each op run
        final VarHandle replayNo; // written by the graph's first op (NO_SKIP, never fails), read by all the others
        Graph graph;

        Program(long seed, boolean chain, int size, int replays, int varCount, VarHandle shared) {
            RandomWorkload w = RandomWorkload.generate(seed, size, varCount, 0, 3);
            this.ops = w.ops;
            this.reads = new int[size][];
            this.noSkip = new boolean[size];
            for (int i = 0; i < size; i++) {
                RandomWorkload.Op op = ops.get(i);
                int[] r = op.reads;
                int before = i > 0 ? ops.get(i - 1).write : -1;
                if (chain && before >= 0 && before != op.write && Arrays.stream(r).noneMatch(x -> x == before)) {
                    r = Arrays.copyOf(r, r.length + 1);
                    r[r.length - 1] = before; // ordered after the op before it: a chain
                }
                reads[i] = r;
                noSkip[i] = Math.floorMod(seed * 31 + i, 7) == 0;
            }
            this.seed = seed;
            this.replays = replays;
            this.data = w.initialData();
            this.vars = new VarHandle[varCount];
            for (int v = 0; v < varCount; v++) {
                vars[v] = engine.newVariable("f" + seed + "v" + v);
            }
            this.shared = shared;
            this.replayNo = engine.newVariable("f" + seed + " replay");
        }

        /** Whether op {@code i} throws in replay {@code r} (from 1): about one in 40, never on a NO_SKIP op. */
        boolean fails(int i, int r) {
            return !noSkip[i] && Math.floorMod((seed + 1) * 1_000_003L + i * 7_919L + r * 104_729L, 40) == 0;
        }

        void capture() {
            int[] replay = {0};
            try (Capture c = engine.capture()) {
                // Every op reads replayNo: it runs after its own replay's count and before the next one's.
                engine.pushSync(ctx -> replay[0]++, Context.cpu(), List.of(), List.of(replayNo), FnProperty.NO_SKIP, 0, "count");
                for (int i = 0; i < ops.size(); i++) {
                    int index = i;
                    RandomWorkload.Op op = ops.get(i);
                    List<VarHandle> rs = new ArrayList<>();
                    for (int v : reads[i]) {
                        rs.add(vars[v]);
                    }
                    rs.add(shared);
                    rs.add(replayNo);
                    FnProperty prop = noSkip[i] ? FnProperty.NO_SKIP : FnProperty.NORMAL;
                    engine.pushSync(ctx -> {
                        ranLog.add(replay[0] * 100_000L + index);
                        if (fails(index, replay[0])) {
                            throw new IllegalStateException("op " + index + " fails in replay " + replay[0]);
                        }
                        op.apply(data);
                    }, Context.cpu(), rs, List.of(vars[op.write]), prop, 0, null);
                }
                graph = c.graph();
            }
        }

        void run() {
            for (int r = 0; r < replays; r++) {
                graph.replay();
            }
        }

        /**
         * The serial run of the program's replays, as the failure and skip rules say (no failure
         * reported): a failed op's write carries a new failure; a skipped op's write carries the one it
         * took over, the first of its reads', else its write's (so several variables can carry one).
         */
        private Model model() {
            Model m = new Model(RandomWorkload.generate(seed, ops.size(), vars.length, 0, 3).initialData(),
                    new long[vars.length], new int[vars.length], new HashSet<>());
            int failures = 0;
            for (int r = 1; r <= replays; r++) {
                for (int i = 0; i < ops.size(); i++) {
                    RandomWorkload.Op op = ops.get(i);
                    m.versions[op.write]++; // a skipped or failed write counts too
                    int inherited = 0;
                    for (int v : reads[i]) {
                        if (inherited == 0) {
                            inherited = m.failure[v];
                        }
                    }
                    if (inherited == 0) {
                        inherited = m.failure[op.write];
                    }
                    if (inherited == 0 || noSkip[i]) {
                        m.ran.add(r * 100_000L + i);
                    }
                    if (inherited != 0 && !noSkip[i]) {
                        m.failure[op.write] = inherited; // skipped: passes the failure on
                    } else if (fails(i, r)) {
                        m.failure[op.write] = ++failures;
                    } else {
                        op.apply(m.data); // a NO_SKIP op runs whatever it reads, and passes nothing on
                    }
                }
            }
            return m;
        }

        /**
         * Waits for every op of the program (each variable's writers) and checks it against the model:
         * which variables carry a failure first (a wait reports a failure once, wherever it was passed
         * on, so only the first variable checked that carries it throws), then values and versions.
         */
        void check(String what) {
            // Drain first, with a wait that reports nothing: a wait that reports a failure while ops of
            // the program still wait would let them run (a reported failure is not taken over).
            VarHandle drained = engine.newVariable("f" + seed + " drained");
            List<VarHandle> all = new ArrayList<>(Arrays.asList(vars));
            all.add(replayNo);
            engine.pushSync(ctx -> { }, Context.cpu(), all, List.of(drained), FnProperty.NO_SKIP, 0, "drain");
            engine.waitForVar(drained, BOUND);
            Model m = model();
            Set<Long> ran = new HashSet<>(ranLog);
            if (!ran.equals(m.ran)) {
                Set<Long> onlyEngine = new TreeSet<>(ran);
                onlyEngine.removeAll(m.ran);
                Set<Long> onlyModel = new TreeSet<>(m.ran);
                onlyModel.removeAll(ran);
                throw new AssertionError("the ops that ran (replay × 100,000 + index) differ from the model's, " + what
                        + ": only the engine ran " + onlyEngine + ", only the model " + onlyModel);
            }
            Set<Integer> reported = new HashSet<>();
            for (int v = 0; v < vars.length; v++) {
                VarHandle h = vars[v];
                if (m.failure[v] != 0 && reported.add(m.failure[v])) {
                    assertThrows(EngineException.class, () -> engine.waitForVar(h, BOUND), h.name() + " carries a failure, " + what);
                } else {
                    engine.waitForVar(h, BOUND); // none, or one a wait above has reported already
                }
            }
            assertArrayEquals(m.data, data, what);
            for (int v = 0; v < vars.length; v++) {
                assertEquals(m.versions[v], vars[v].version(), "version of " + vars[v].name() + ", " + what);
            }
            assertEquals(replays, replayNo.version(), what);
        }
    }

    /**
     * The serial model's values, versions, the failure each variable carries (0: none; else which), and
     * the ops that run (replay × 100,000 + index).
     */
    private record Model(double[] data, long[] versions, int[] failure, Set<Long> ran) {
    }

    @Test
    void replaysOfGraphsWithFailingOpsEqualTheSerialModel() throws InterruptedException {
        int seeds = longForm() ? 24 : 4;
        int size = longForm() ? 300 : 60;
        int replays = longForm() ? 12 : 4;
        for (int seed = 0; seed < seeds; seed++) {
            int threads = 1 + seed % 3;
            VarHandle shared = engine.newVariable("shared " + seed);
            engine.op("init shared").writes(shared).run(ctx -> { });
            List<Program> programs = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                boolean chain = (seed + t) % 2 == 0;
                programs.add(new Program(seed * 10L + t, chain, size, replays, 10, shared));
            }
            List<ThrowingRunnable> pushers = new ArrayList<>();
            for (Program p : programs) {
                pushers.add(() -> {
                    p.capture();
                    p.run();
                });
            }
            runOnThreads("replay-failures-pusher", pushers);
            for (Program p : programs) {
                String what = "seed " + seed + ", program " + (p.seed % 10) + " of " + threads;
                p.check(what);
            }
            try {
                engine.waitForAll(BOUND);
            } catch (EngineException expected) {
                // failures of variables written again after them (checked above through the model)
            }
        }
    }
}
