package org.depengine.benchmarks.contender;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.depengine.api.Bulk;
import org.depengine.api.Capture;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.FnProperty;
import org.depengine.api.Graph;
import org.depengine.api.SyncFn;
import org.depengine.api.VarHandle;
import org.depengine.api.spi.EngineConfig;
import org.depengine.benchmarks.workload.OpBody;
import org.depengine.benchmarks.workload.OpList;
import org.depengine.benchmarks.workload.Workload;
import org.depengine.profiler.Profiler;

/**
 * An engine made with {@link Engine#create(String, EngineConfig)} (settings from the
 * {@code depengine.*} system properties), with one variable per workload variable and, per op, its
 * variable lists and function made up front, so the timed region holds only {@code pushSync} calls
 * and {@code waitForAll}. With profiling on, a {@link Profiler} in mode ALL listens for the whole
 * trial. With {@code builder}, each push goes through {@code engine.op(name)...run(fn)} instead of
 * the {@code pushSync} overload, to compare what the two cost (contender name {@code ENGINE+builder}).
 * With a bulk size, each run's pushes are made inside {@code engine.bulk(size)}, so that consecutive
 * ops merge (contender name {@code ENGINE+bulkN}). With {@code replay}, the whole list, or the step it
 * repeats ({@link OpList#period()}), is captured once, at setup ({@code engine.capture()}), and each run
 * is one {@code graph.replay()} per step (contender name {@code ENGINE+replay}).
 */
final class EngineContender implements Contender {
    /** The suffix of a contender name that pushes through the op builder. */
    static final String BUILDER_SUFFIX = "+builder";
    /** The suffix of a contender name that replays the whole list, captured once. */
    static final String REPLAY_SUFFIX = "+replay";
    /** The suffix of a contender name that pushes inside a bulk, followed by its size. */
    static final String BULK_SUFFIX = "+bulk";

    private final Workload workload;
    private final Engine engine;
    private final Profiler profiler;
    private final Context ctx;
    private final VarHandle[] vars;
    private final List<List<VarHandle>> reads;
    private final List<List<VarHandle>> writes;
    private final SyncFn[] fns;
    private final String opName;
    private final boolean builder;
    private final int bulk; // 0: no bulk
    private final Graph graph; // the whole list, captured at setup; null: pushed one by one
    private long runs;
    private boolean closed;

    EngineContender(String engineName, Workload workload, Context ctx, boolean profiling, boolean builder, int bulk,
                    boolean replay) {
        this.builder = builder;
        this.bulk = bulk;
        this.workload = workload;
        this.ctx = ctx;
        this.engine = Engine.create(engineName, EngineConfig.fromSystemProperties());
        this.profiler = profiling ? Profiler.builder().mode(Profiler.Mode.ALL).build().start(engine) : null;
        OpList ops = workload.ops();
        this.opName = ops.name();
        vars = new VarHandle[ops.varCount()];
        for (int v = 0; v < vars.length; v++) {
            vars[v] = engine.newVariable("v" + v);
        }
        int n = ops.size();
        reads = new ArrayList<>(n);
        writes = new ArrayList<>(n);
        fns = new SyncFn[n];
        OpBody body = workload.body();
        for (int i = 0; i < n; i++) {
            reads.add(handles(ops.reads(i)));
            writes.add(handles(ops.writes(i)));
            int op = i;
            fns[i] = rc -> body.run(op, rc.stream());
        }
        warmUp(ops);
        graph = replay ? capture(ops.period()) : null;
    }

    /**
     * Records the list's first {@code n} ops once: the whole list, or the step it repeats
     * ({@link OpList#period()}). Recording runs nothing, so the variables' versions stay at 0.
     */
    private Graph capture(int n) {
        try (Capture c = engine.capture()) {
            push(0, n);
            return c.graph();
        }
    }

    /**
     * Engines open devices and start worker groups on the first push to a context and property: one
     * empty op per property the list uses does that here, outside the timed region.
     */
    private void warmUp(OpList ops) {
        EnumSet<FnProperty> props = EnumSet.noneOf(FnProperty.class);
        for (int i = 0; i < ops.size(); i++) {
            props.add(ops.prop(i));
        }
        VarHandle scratch = engine.newVariable("warm-up");
        for (FnProperty p : props) {
            engine.pushSync(rc -> { }, ctx, List.of(), List.of(scratch), p, 0, "warm-up");
        }
        engine.waitForAll();
    }

    private List<VarHandle> handles(int[] ids) {
        VarHandle[] out = new VarHandle[ids.length];
        for (int k = 0; k < ids.length; k++) {
            out[k] = vars[ids[k]];
        }
        return List.of(out);
    }

    @Override
    public String name() {
        return engine.name() + (profiler != null ? "+profiler" : "") + (builder ? BUILDER_SUFFIX : "")
                + (bulk > 0 ? BULK_SUFFIX + bulk : "") + (graph != null ? REPLAY_SUFFIX : "");
    }

    @Override
    public void reset() {
        workload.beforeRun();
        runs++;
    }

    @Override
    public void submit(int from, int to) {
        if (graph != null) {
            int size = workload.ops().size();
            if (from != 0 || to != size) {
                throw new UnsupportedOperationException(name() + " replays the whole list at once, not ops " + from + ".." + to);
            }
            for (int done = 0; done < size; done += graph.size()) {
                graph.replay(); // the list is this step repeated (OpList.period)
            }
            return;
        }
        if (bulk == 0) {
            push(from, to);
            return;
        }
        Bulk b = engine.bulk(bulk);
        try {
            push(from, to);
        } finally {
            b.close();
        }
    }

    private void push(int from, int to) {
        OpList ops = workload.ops();
        if (builder) {
            for (int i = from; i < to; i++) {
                engine.op(opName).reads(reads.get(i)).writes(writes.get(i)).on(ctx).property(ops.prop(i)).run(fns[i]);
            }
            return;
        }
        for (int i = from; i < to; i++) {
            engine.pushSync(fns[i], ctx, reads.get(i), writes.get(i), ops.prop(i), 0, opName);
        }
    }

    @Override
    public void awaitAll() {
        engine.waitForAll();
    }

    /** Each variable's version must be the runs so far times the writes per run. */
    @Override
    public void verify() {
        long[] perRun = workload.ops().writesPerVar();
        for (int v = 0; v < vars.length; v++) {
            long expected = perRun[v] * runs;
            if (vars[v].version() != expected) {
                throw new IllegalStateException(name() + " on " + workload.ops() + ": variable " + v + " has version "
                        + vars[v].version() + " after " + runs + " runs; expected " + expected);
            }
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (profiler != null) {
                profiler.stop();
            }
        } finally {
            engine.close();
        }
    }
}
