package org.depengine.core.tracker;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import org.depengine.api.Context;
import org.depengine.api.FnProperty;
import org.depengine.api.SyncFn;
import org.jetbrains.lincheck.Lincheck;
import org.jetbrains.lincheck.LincheckAssertionError;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ManagedStrategyGuaranteeKt;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;

/**
 * Lincheck: ops over two variables, registered as the engine does ({@link OpBlock#register()}, through
 * the engine's {@link Registration}, then {@link OpBlock#dropGuard()}), completed by the engine's own
 * completion code (a claim, {@link OpBlock#claim()}, then {@link OpBlock#completeClaimed}, which
 * releases every variable: the host's hooks have nothing to do here), from several threads at once.
 *
 * <p>{@link WithReleaseAtLaunch} adds the fence cases: a running op may release its variables at
 * launch ({@link OpBlock#releaseAtLaunch}) and complete later, when its device work is done; the ops
 * released behind it must be deferred until then, by the engine's own dispatcher decision
 * ({@link OpBlock#deferBehindFences}, with no device-side waits, whose ordering is the device's), and
 * every rule above still holds.
 *
 * <p>A whole multi-variable completion is not one atomic step (each variable grants on its own, so
 * two completions can each finish one half of a third op's wait), so this is not a linearizability
 * check of return values; it checks the contract on every interleaving the model checker explores:
 * <ul>
 *   <li>an op starts only when no op it conflicts with (a shared variable that either writes) is
 *   running or launched, and it starts exactly once;</li>
 *   <li>the pushes are strictly serialisable: the order in which conflicting ops start on each
 *   variable, together with the real-time order of registrations (a push whose {@code register()}
 *   returned before another's began comes first, e.g. a thread's own pushes), has no cycle;</li>
 *   <li>no push cycle and no lost wake-up: once pushes stop, completing whatever is running drains
 *   every op, and both variables end with an empty queue and one version per completed write.</li>
 * </ul>
 */
@Param(name = "shape", gen = IntGen.class, conf = "0:7")
@Param(name = "k", gen = IntGen.class, conf = "0:2")
public class TrackerModelCheckTest {
    private static final int MAX_OPS = 64;
    private static final int REGISTERED = 0;
    private static final int STARTED = 1;
    private static final int CLAIMED = 2;
    private static final int COMPLETED = 3;
    private static final int LAUNCHED = 4; // released its variables at launch; device work not done
    private static final Var[] NONE = new Var[0];

    private final Object owner = new Object();
    private final Var a = new Var(owner, "a");
    private final Var b = new Var(owner, "b");
    private final Object registration = new Object(); // hands out ids; pushes register outside it
    private final AtomicReferenceArray<OpBlock> ops = new AtomicReferenceArray<>(MAX_OPS);
    private final AtomicInteger clock = new AtomicInteger(); // stamps the registrations' begin and end
    private final AtomicIntegerArray registerBegin = new AtomicIntegerArray(MAX_OPS);
    private final AtomicIntegerArray registerEnd = new AtomicIntegerArray(MAX_OPS);
    private final ConcurrentLinkedQueue<Integer> startsOnA = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Integer> startsOnB = new ConcurrentLinkedQueue<>();
    private final AtomicIntegerArray state = new AtomicIntegerArray(MAX_OPS);
    private final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
    private final LongAdder hostDeferrals = new LongAdder();
    private int registered; // guarded by registration
    private volatile int published; // ops[0, published) are set; scans stop there
    // Replays (WithReplays): per op id, the replay that pushed it (from 1; 0: pushed on its own) and its
    // index in the graph; the block set a later replay may reuse, as RecordedGraph keeps one.
    private final AtomicIntegerArray replayOf = new AtomicIntegerArray(MAX_OPS);
    private final AtomicIntegerArray indexInGraph = new AtomicIntegerArray(MAX_OPS);
    private final AtomicReference<OpBlock[]> keptSet = new AtomicReference<>();
    private int replays; // guarded by registration
    private final AtomicInteger reuses = new AtomicInteger();

    /** Lincheck makes one instance per run. */
    public TrackerModelCheckTest() {
    }

    private final OpHost host = new OpHost() {

        private final Registration registration = new Registration();


        @Override

        public Registration registration() {

            return registration;

        }

        @Override
        public void ready(OpBlock op) {
            dispatch(op);
        }

        @Override
        public void completed(OpBlock op, Failure own) {
            // the engine's hooks (failure ledger, listener, diagnostics): none in the model
        }
    };

    /**
     * What the engine's dispatcher does with a ready op ({@code AbstractEngine.dispatch}): one released
     * behind fences goes through the engine's decision, which defers it on the host until they are done,
     * else it starts.
     */
    private void dispatch(OpBlock op) {
        if (honoursFences() && op.hasFences() && op.deferBehindFences(false, hostDeferrals)) {
            return; // dispatched again when the last fence's device work is done
        }
        started(op);
    }

    /** Whether the dispatcher defers ops behind fences, as the engine's does (a subclass shows why it must). */
    protected boolean honoursFences() {
        return true;
    }

    private void started(OpBlock op) {
        int id = (int) op.id();
        int n = published;
        for (int j = 0; j < n; j++) {
            OpBlock other = ops.get(j);
            int st = state.get(j);
            if (j != id && conflict(other.def(), op.def()) && st != REGISTERED && st != COMPLETED) {
                violations.add("op " + id + " " + shape(op.def()) + " started before the conflicting op " + j + " "
                        + shape(other.def()) + " completed");
            }
        }
        if (uses(op.def(), a)) {
            startsOnA.add(id); // before it is published as running: it cannot complete before this
        }
        if (uses(op.def(), b)) {
            startsOnB.add(id);
        }
        op.start(null); // before it is published as running: a completer may complete it at once
        boolean inline = runsInline(op);
        if (!state.compareAndSet(id, REGISTERED, inline ? CLAIMED : STARTED)) {
            violations.add("op " + id + " started twice");
        }
        if (inline) {
            // Its runner completes it, claiming nothing, as an engine's runner completes a sync op it
            // never handed out (the naive engine runs ops so, where they become ready).
            state.set(id, COMPLETED); // before the release: a successor checks it when it starts
            op.completeRun(null);
        }
        op.endRun(); // else the model's runner hands the op's completion to the completing actors
    }

    /** Whether the thread that starts {@code op} also completes it, at once (a subclass says which). */
    protected boolean runsInline(OpBlock op) {
        return false;
    }

    /**
     * The cycle, if any, in "must come before": conflicting ops in the order they started on a shared
     * variable, and registrations that ended before another began. Null when the pushes are strictly
     * serialisable.
     */
    private String serialisationCycle() {
        int n = published; // at most MAX_OPS = 64: one long per op holds the ops it must come before
        long[] before = new long[n];
        for (ConcurrentLinkedQueue<Integer> starts : List.of(startsOnA, startsOnB)) {
            Var v = starts == startsOnA ? a : b;
            List<Integer> order = new ArrayList<>(starts);
            for (int i = 0; i < order.size(); i++) {
                for (int j = i + 1; j < order.size(); j++) {
                    if (conflictOn(v, ops.get(order.get(i)).def(), ops.get(order.get(j)).def())) {
                        before[order.get(i)] |= 1L << order.get(j);
                    }
                }
            }
        }
        for (int x = 0; x < n; x++) {
            for (int y = 0; y < n; y++) {
                boolean inOrder = registerEnd.get(x) < registerBegin.get(y)
                        || (replayOf.get(x) != 0 && replayOf.get(x) == replayOf.get(y) && indexInGraph.get(x) < indexInGraph.get(y));
                if (x != y && inOrder && conflict(ops.get(x).def(), ops.get(y).def())) {
                    before[x] |= 1L << y; // a replay's ops are pushed in graph order, in one step
                }
            }
        }
        for (int k = 0; k < n; k++) { // transitive closure, a row of bits at a time (Warshall)
            for (int x = 0; x < n; x++) {
                if ((before[x] & (1L << k)) != 0) {
                    before[x] |= before[k];
                }
            }
        }
        for (int x = 0; x < n; x++) {
            if ((before[x] & (1L << x)) != 0) {
                return "op " + x + " " + shape(ops.get(x).def()) + " must come before itself (starts on a " + startsOnA
                        + ", on b " + startsOnB + "): the pushes are not serialisable";
            }
        }
        return null;
    }

    private static boolean conflictOn(Var v, OpDef x, OpDef y) {
        return uses(x, v) && uses(y, v) && (writes(x, v) || writes(y, v));
    }

    private static boolean writes(OpDef d, Var v) {
        for (Var w : d.writes()) {
            if (w == v) {
                return true;
            }
        }
        return false;
    }

    private static boolean conflict(OpDef x, OpDef y) {
        for (Var v : x.writes()) {
            if (uses(y, v)) {
                return true;
            }
        }
        for (Var v : y.writes()) {
            if (uses(x, v)) {
                return true;
            }
        }
        return false;
    }

    private static boolean uses(OpDef d, Var v) {
        for (Var r : d.reads()) {
            if (r == v) {
                return true;
            }
        }
        for (Var w : d.writes()) {
            if (w == v) {
                return true;
            }
        }
        return false;
    }

    private static String shape(OpDef d) {
        StringBuilder s = new StringBuilder();
        for (Var v : d.reads()) {
            s.append('R').append(v.name());
        }
        for (Var v : d.writes()) {
            s.append('W').append(v.name());
        }
        return s.toString();
    }

    private OpDef def(int shape, int id) {
        Var[] reads;
        Var[] writes;
        switch (shape) {
            case 0 -> { reads = new Var[] {a}; writes = NONE; }
            case 1 -> { reads = NONE; writes = new Var[] {a}; }
            case 2 -> { reads = new Var[] {b}; writes = NONE; }
            case 3 -> { reads = NONE; writes = new Var[] {b}; }
            case 4 -> { reads = new Var[] {a}; writes = new Var[] {b}; }
            case 5 -> { reads = new Var[] {b}; writes = new Var[] {a}; }
            case 6 -> { reads = NONE; writes = new Var[] {a, b}; }
            default -> { reads = new Var[] {a, b}; writes = NONE; }
        }
        SyncFn fn = ctx -> { };
        return new OpDef(owner, fn, reads, writes, FnProperty.NORMAL, "op" + id, OpDef.Kind.USER);
    }

    /**
     * Whether an op registers on all its variables at once ({@link OpBlock#register()}, as the engine
     * does) rather than on each variable on its own (a subclass shows why it must).
     */
    protected boolean atomicRegistration() {
        return true;
    }

    /** Pushes an op of one of eight shapes over a and b, as the engine does. */
    @Operation
    public void push(@Param(name = "shape") int shape) {
        OpBlock op;
        synchronized (registration) {
            int id = registered++;
            op = new OpBlock(def(shape, id), host, Context.cpu(), 0, false, id, null, null, null);
            ops.set(id, op);
            published = id + 1;
        }
        int id = (int) op.id();
        registerBegin.set(id, clock.incrementAndGet());
        if (atomicRegistration()) {
            RuntimeException refused = op.register();
            if (refused != null) {
                violations.add("a live variable refused op " + id + ": " + refused);
            }
        } else {
            for (Var v : op.def().reads()) {
                appendAlone(v, op, false);
            }
            for (Var v : op.def().writes()) {
                appendAlone(v, op, true);
            }
        }
        registerEnd.set(id, clock.incrementAndGet());
        if (op.dropGuard()) {
            dispatch(op);
        }
    }

    /** Appends {@code op} to one variable under that variable's lock alone: the broken registration. */
    private static void appendAlone(Var v, OpBlock op, boolean write) {
        int granted;
        v.lock();
        try {
            granted = write ? v.writeLocked(op, false) : v.readLocked(op);
        } finally {
            v.unlock();
        }
        op.appended();
        op.granted(granted);
    }

    /**
     * The recorded graph a replay pushes: {@code W a; R a W b; R b W a; W b}. Its slots are those
     * {@code ReplayPlan} computes for it (ReplayPlanTest checks that): the read of a by op 1 and the
     * read of b by op 2 lie between their variable's first and last write, so they skip the queues and
     * the chain 0, 1, 2, 3 of edges orders them; a's queue gets ops 0 and 2, b's ops 1 and 3.
     */
    private OpDef[] graph() {
        Var[] na = NONE;
        SyncFn fn = ctx -> { };
        return new OpDef[] {
            new OpDef(owner, fn, na, new Var[] {a}, FnProperty.NORMAL, "g0", OpDef.Kind.USER),
            new OpDef(owner, fn, new Var[] {a}, new Var[] {b}, FnProperty.NORMAL, "g1", OpDef.Kind.USER),
            new OpDef(owner, fn, new Var[] {b}, new Var[] {a}, FnProperty.NORMAL, "g2", OpDef.Kind.USER),
            new OpDef(owner, fn, na, new Var[] {b}, FnProperty.NORMAL, "g3", OpDef.Kind.USER),
        };
    }

    private final OpDef[] graph = graph();
    private static final boolean[][] SKIPPED = {{false}, {true, false}, {true, false}, {false}};
    private static final int[] PREDS = {0, 1, 1, 1};
    private static final int[][] SUCCESSORS = {{1}, {2}, {3}, {}};
    private final Var[] graphVars = a.lockOrder() < b.lockOrder() ? new Var[] {a, b} : new Var[] {b, a};
    // Per variable of graphVars: its registered accesses (op index * 2, + 1 for a write): a gets 0 and 2, b 1 and 3.
    private final int[][] graphAccesses = graphVars[0] == a ? new int[][] {{1, 5}, {3, 7}} : new int[][] {{3, 7}, {1, 5}};

    /**
     * Replays the graph as {@code RecordedGraph.replay} does: takes the kept block set if every block
     * of it is retired and reuses its blocks ({@link OpBlock#reuse}), else makes new ones; registers the
     * whole replay as one step ({@link Registration#registerReplay}), drops the guards in order, and
     * offers the set to the next replay.
     */
    protected void replayOnce() {
        OpBlock[] set = keptSet.getAndSet(null);
        boolean reuse = set != null && retired(set);
        if (set != null && !reuse) {
            keptSet.compareAndSet(null, set); // still in use: kept for a later replay
        }
        OpBlock[] blocks = reuse ? set : new OpBlock[graph.length];
        if (reuse) {
            reuses.incrementAndGet();
        }
        int first;
        synchronized (registration) {
            first = registered;
            registered += graph.length;
            int r = ++replays;
            for (int i = 0; i < graph.length; i++) {
                int id = first + i;
                if (reuse) {
                    blocks[i].reuse(id, r, null, null);
                } else {
                    blocks[i] = new OpBlock(graph[i], host, Context.cpu(), 0, false, id, null, null, null);
                    blocks[i].linkReplay(new ReplaySlot(graph, SKIPPED[i], PREDS[i], SUCCESSORS[i], blocks), r);
                }
                replayOf.set(id, r);
                indexInGraph.set(id, i);
                ops.set(id, blocks[i]);
            }
            published = first + graph.length;
        }
        int begin = clock.incrementAndGet();
        for (int i = 0; i < graph.length; i++) {
            registerBegin.set(first + i, begin);
        }
        Var refused = host.registration().registerReplay(blocks, graphVars, graphAccesses);
        if (refused != null) {
            violations.add("a live variable refused replay of ops " + first + ".." + (published - 1));
        }
        int end = clock.incrementAndGet();
        for (int i = 0; i < graph.length; i++) {
            registerEnd.set(first + i, end);
        }
        for (OpBlock op : blocks) {
            if (op.slot().guarded() && op.dropGuard()) {
                dispatch(op);
            }
        }
        keptSet.compareAndSet(null, blocks);
    }

    private static boolean retired(OpBlock[] set) {
        for (OpBlock op : set) {
            if (!op.isRetired()) {
                return false;
            }
        }
        return true;
    }

    /** Completes the k-th running op, if there is one. */
    @Operation
    public void complete(@Param(name = "k") int k) {
        int n = published;
        for (int id = 0; id < n; id++) {
            if (state.get(id) == STARTED && k-- == 0) {
                finish(id);
                return;
            }
        }
    }

    private void finish(int id) {
        if (state.compareAndSet(id, STARTED, CLAIMED)) {
            state.set(id, COMPLETED); // before the release: a successor checks it when it starts
            complete(ops.get(id));
        }
    }

    /** A completer the op's completion was handed to (its callback, its device) completes it. */
    private void complete(OpBlock op) {
        if (!op.claim()) {
            violations.add(op + " was claimed twice");
            return;
        }
        op.completeClaimed(null);
    }

    /** Releases the variables of the k-th running op at launch, as a device op of a release-at-launch engine. */
    protected void launchRunning(int k) {
        int n = published;
        for (int id = 0; id < n; id++) {
            if (state.get(id) == STARTED && k-- == 0) {
                if (state.compareAndSet(id, STARTED, CLAIMED)) {
                    // CLAIMED, not completed, while the variables are released: a successor that starts
                    // meanwhile is caught. LAUNCHED only once releaseAtLaunch returned, as in the engine,
                    // where the device's done report is hooked up after the launch.
                    ops.get(id).releaseAtLaunch(null); // no event: successors wait on the host
                    state.set(id, LAUNCHED);
                }
                return;
            }
        }
    }

    /** The device work of the k-th launched op is done. */
    protected void deviceDone(int k) {
        int n = published;
        for (int id = 0; id < n; id++) {
            if (state.get(id) == LAUNCHED && k-- == 0) {
                finishLaunched(id);
                return;
            }
        }
    }

    private void finishLaunched(int id) {
        if (state.compareAndSet(id, LAUNCHED, COMPLETED)) {
            complete(ops.get(id));
        }
    }

    /** Completes whatever runs (or is launched), and what that releases, until nothing runs. */
    void drain() {
        boolean progress = true;
        while (progress) {
            progress = false;
            for (int id = 0; id < published; id++) {
                if (state.get(id) == STARTED) {
                    finish(id);
                    progress = true;
                } else if (state.get(id) == LAUNCHED) {
                    finishLaunched(id);
                    progress = true;
                }
            }
        }
    }

    /** Whether replays reused a retired block set (counted by {@link #replayOnce}). */
    int reuses() {
        return reuses.get();
    }

    /** Once pushes stop, completing whatever runs must drain every op; then nothing is queued. */
    @Validate
    public void drainsAndKeepsTheRules() {
        drain();
        List<String> problems = new ArrayList<>(violations);
        String cycle = serialisationCycle();
        if (cycle != null) {
            problems.add(cycle);
        }
        int writesA = 0;
        int writesB = 0;
        for (int id = 0; id < published; id++) {
            if (state.get(id) != COMPLETED) {
                problems.add("op " + id + " " + shape(ops.get(id).def()) + " never started (a cycle or a lost wake-up)");
            }
            for (Var w : ops.get(id).def().writes()) {
                if (w == a) {
                    writesA++;
                } else {
                    writesB++;
                }
            }
        }
        if (a.hasPendingWrite() || b.hasPendingWrite()) {
            problems.add("a queue is not empty after every op completed");
        }
        if (a.version() != writesA || b.version() != writesB) {
            problems.add("versions " + a.version() + "/" + b.version() + ", completed writes " + writesA + "/" + writesB);
        }
        if (!problems.isEmpty()) {
            throw new IllegalStateException(String.join("; ", problems));
        }
    }

    /** 1, or 10 with -Ddepengine.test.long=true. */
    static int scale() {
        return Boolean.getBoolean("depengine.test.long") ? 10 : 1;
    }

    /**
     * {@code options} with the recording of {@link OpTransition} (on in engine-core's tests) left out of
     * the model checker's analysis: it is test instrumentation, not the code under test.
     */
    static ModelCheckingOptions ignoringTheRecorder(ModelCheckingOptions options) {
        return options.addGuarantee(ManagedStrategyGuaranteeKt.forClasses(OpTransition.class.getName() + "$Record")
                .allMethods().ignore());
    }

    static ModelCheckingOptions modelCheckingOptions() {
        return ignoringTheRecorder(new ModelCheckingOptions())
                .iterations(6 * scale())
                .invocationsPerIteration(150)
                .threads(3)
                .actorsPerThread(3)
                .actorsBefore(2)
                .actorsAfter(1);
    }

    @Test
    void modelChecking() {
        modelCheckingOptions().check(TrackerModelCheckTest.class);
    }

    @Test
    void stress() {
        new StressOptions()
                .iterations(6 * scale())
                .invocationsPerIteration(1_000)
                .threads(3)
                .actorsPerThread(4)
                .actorsBefore(2)
                .actorsAfter(1)
                .check(TrackerModelCheckTest.class);
    }

    /** The same ops with each append done on its own, under that variable's lock only. */
    public static class WithoutAtomicRegistration extends TrackerModelCheckTest {
        /** Lincheck makes one instance per run. */
        public WithoutAtomicRegistration() {
        }

        @Override
        protected boolean atomicRegistration() {
            return false;
        }
    }

    /**
     * The same ops, where a running op may also release its variables at launch and complete when its
     * device work is done: every op still starts only after the conflicting ops registered before it
     * are done on the device, and everything drains.
     */
    public static class WithReleaseAtLaunch extends TrackerModelCheckTest {
        /** Lincheck makes one instance per run. */
        public WithReleaseAtLaunch() {
        }

        /** Releases the k-th running op's variables at launch. */
        @Operation
        public void launch(@Param(name = "k") int k) {
            launchRunning(k);
        }

        /** The k-th launched op's device work is done. */
        @Operation
        public void done(@Param(name = "k") int k) {
            deviceDone(k);
        }
    }

    /** Release at launch with a dispatcher that ignores fences. */
    public static class IgnoringFences extends WithReleaseAtLaunch {
        /** Lincheck makes one instance per run. */
        public IgnoringFences() {
        }

        @Override
        protected boolean honoursFences() {
            return false;
        }
    }

    /**
     * Also replays of a recorded graph over a and b ({@link #replayOnce}), from any thread, interleaved
     * with the pushes and with each other, its blocks reused once retired: the same rules hold, the
     * replay's ops start in graph order where they conflict, and each ends counted in the versions.
     */
    public static class WithReplays extends TrackerModelCheckTest {
        /** Lincheck makes one instance per run. */
        public WithReplays() {
        }

        /** Replays the graph once. */
        @Operation
        public void replay() {
            replayOnce();
        }

        /**
         * Replays the graph, lets everything running complete, and replays it again: a training loop's
         * next step after the engine went idle, which reuses the first replay's retired block set.
         */
        @Operation
        public void replayAcrossIdle() {
            replayOnce();
            drain();
            replayOnce();
        }
    }

    /**
     * The same ops, where the thread that starts an op of even id completes it at once, with no claim
     * (as an engine's runner completes a sync op): releases made by such completions dispatch further
     * ops on the same thread, interleaved with pushes and claimed completions on the others.
     */
    public static class WithInlineRuns extends TrackerModelCheckTest {
        /** Lincheck makes one instance per run. */
        public WithInlineRuns() {
        }

        @Override
        protected boolean runsInline(OpBlock op) {
            return (op.id() & 1) == 0;
        }
    }

    @Test
    void modelCheckingWithInlineRuns() {
        modelCheckingOptions().check(WithInlineRuns.class);
    }

    @Test
    void stressWithInlineRuns() {
        stressOptions().check(WithInlineRuns.class);
    }

    @Test
    void stressWithReleaseAtLaunch() {
        stressOptions().check(WithReleaseAtLaunch.class);
    }

    private static StressOptions stressOptions() {
        return new StressOptions()
                .iterations(4 * scale())
                .invocationsPerIteration(1_000)
                .threads(3)
                .actorsPerThread(3)
                .actorsBefore(2)
                .actorsAfter(1);
    }

    /**
     * Smaller scenarios than the others': a replay is four ops and one registration step over both
     * variables, so each explored interleaving is several times longer (the default sizes took ~5 min on
     * a loaded 2-core machine; these ~30 s).
     */
    static ModelCheckingOptions replayModelCheckingOptions() {
        return modelCheckingOptions()
                .iterations(2 * scale())
                .invocationsPerIteration(60)
                .actorsPerThread(2)
                .actorsBefore(1)
                .actorsAfter(0);
    }

    @Test
    void modelCheckingWithReplays() {
        replayModelCheckingOptions().check(WithReplays.class);
    }

    @Test
    void stressWithReplays() {
        stressOptions().check(WithReplays.class);
    }

    @Test
    void aReplayReusesARetiredSetWhileOtherPushesRun() {
        // The general-purpose model checker on one scenario the data-structure check rarely reaches: the
        // first replay's ops all complete, so its block set is retired; a second replay takes and reuses
        // it (its blocks go back to PENDING) while another thread pushes and completes over the same
        // variables. Every rule of drainsAndKeepsTheRules still holds.
        Lincheck.runConcurrentTest(300 * scale(), () -> {
            WithReplays m = new WithReplays();
            m.replayOnce();
            m.drain();
            Thread replayer = new Thread(m::replayOnce);
            Thread pusher = new Thread(() -> {
                m.push(6);
                m.complete(0);
            });
            replayer.start();
            pusher.start();
            joinModel(replayer);
            joinModel(pusher);
            m.drainsAndKeepsTheRules();
            if (m.reuses() != 1) {
                throw new AssertionError("the second replay did not reuse the retired set");
            }
        });
    }

    private static void joinModel(Thread t) {
        try {
            t.join();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void modelCheckingWithReleaseAtLaunch() {
        modelCheckingOptions().check(WithReleaseAtLaunch.class);
    }

    @Test
    void ignoringFencesTheModelCheckerFindsAnOpStartedBeforeItsProducerWasDone() {
        // Shows the fence cases have teeth: an op released behind a launched writer must not start
        // before the writer's device work is done.
        LincheckAssertionError e = assertThrows(LincheckAssertionError.class,
                () -> modelCheckingOptions().iterations(20).minimizeFailedScenario(false).check(IgnoringFences.class));
        assertTrue(e.getMessage().contains("started before the conflicting op"), e.getMessage());
    }

    @Test
    void withoutAtomicRegistrationTheModelCheckerFindsAPushCycle() {
        // Shows the check has teeth. Appending to each variable on its own, X (reads a, writes b) and Y
        // (reads b, writes a) pushed at once can each be granted their read and queue their write behind
        // the other's read (a cycle: neither ever starts), or two pushes can reach the variables in
        // opposite orders (not serialisable).
        LincheckAssertionError e = assertThrows(LincheckAssertionError.class,
                () -> modelCheckingOptions().iterations(20).minimizeFailedScenario(false).check(WithoutAtomicRegistration.class));
        assertTrue(e.getMessage().contains("never started") || e.getMessage().contains("not serialisable")
                        || e.getMessage().contains("started before the conflicting op"), e.getMessage());
    }
}
