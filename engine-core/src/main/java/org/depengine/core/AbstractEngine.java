package org.depengine.core;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.depengine.api.AsyncFn;
import org.depengine.api.Bulk;
import org.depengine.api.Capture;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.EngineDiagnostics;
import org.depengine.api.EngineMetrics;
import org.depengine.api.FnProperty;
import org.depengine.api.OprHandle;
import org.depengine.api.SyncFn;
import org.depengine.api.VarHandle;
import org.depengine.api.listen.OpListener;
import org.depengine.api.spi.EngineConfig;
import org.depengine.core.bulk.Bulks;
import org.depengine.core.dispatch.Dispatcher;
import org.depengine.core.dispatch.ListenerFanout;
import org.depengine.core.dispatch.PushChecks;
import org.depengine.core.exec.CurrentOp;
import org.depengine.core.exec.EngineCounters;
import org.depengine.core.replay.CaptureSession;
import org.depengine.core.replay.Captures;
import org.depengine.core.tracker.OpBlock;
import org.depengine.core.tracker.OpDef;
import org.depengine.core.tracker.Var;
import org.depengine.core.wait.Waits;

/**
 * The {@link Engine} every engine is: the API's checks and calls, over the parts that do the work,
 * each in a package of its own:
 * <ul>
 *   <li>{@code core.dispatch}: push, register, dispatch, run ({@code Dispatcher}, {@code OpExecution});
 *   where a ready op runs is the engine's {@link DispatchPolicy}, the one thing engines differ in;</li>
 *   <li>{@code core.tracker}: variables, their queues and the op in parts ({@code OpBlock});</li>
 *   <li>{@code core.wait}: waits, failure reporting, the pending-op count and diagnostics;</li>
 *   <li>{@code core.device}: an engine's devices and the ordering of device ops (launch, fences);</li>
 *   <li>{@code core.replay}: capture, and graphs that replay themselves;</li>
 *   <li>{@code core.bulk} and {@code core.exec}: bulks, and the worker groups threaded engines run on.</li>
 * </ul>
 * An engine is this class made with a factory of its dispatch policy.
 */
// EngineCounters (counters()) is exported to the engine modules only: their worker groups register
// with it, and every other module sees the engine only as an Engine.
@SuppressWarnings("exports")
public abstract class AbstractEngine implements Engine, EngineCounters.Owner {
    private final String name;
    /** The configuration the engine was created with. */
    protected final EngineConfig config;
    private final AtomicLong varIds = new AtomicLong();
    private final Object lifecycle = new Object();
    private final CountDownLatch closedSignal = new CountDownLatch(1); // released when close() has finished
    private final Dispatcher dispatcher;
    private final PushChecks checks;
    private final Bulks bulks;
    private final Waits waits;

    /**
     * @param name the engine's name ({@link #name()})
     * @param config its settings
     * @param policy makes the engine's dispatch policy, once, given what it may use of the core
     */
    @SuppressWarnings("this-escape") // the parts made here use the engine only once ops are pushed
    protected AbstractEngine(String name, EngineConfig config, Function<EngineRuntime, DispatchPolicy> policy) {
        this.name = Objects.requireNonNull(name, "name");
        this.config = Objects.requireNonNull(config, "config");
        this.dispatcher = new Dispatcher(this, name, config.get(CoreSettings.TIMING_SAMPLE_INTERVAL));
        this.checks = new PushChecks(this);
        this.bulks = dispatcher.bulks();
        this.waits = new Waits(new WaitHost(), dispatcher.pending(), dispatcher.diag(), dispatcher.failures(),
                config.get(CoreSettings.HANG_DOCTOR_MS));
        dispatcher.usePolicy(Objects.requireNonNull(policy.apply(new EngineRuntime(this, dispatcher)), "policy"));
    }

    // ---- variables and operators ------------------------------------------------------------------

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final VarHandle newVariable() {
        return dispatcher.diag().track(new Var(this, "var#" + varIds.incrementAndGet()));
    }

    @Override
    public final VarHandle newVariable(String varName) {
        Objects.requireNonNull(varName, "name");
        return dispatcher.diag().track(new Var(this, varName));
    }

    @Override
    public final OprHandle newOperator(AsyncFn fn, List<VarHandle> constVars, List<VarHandle> mutableVars,
                                       FnProperty prop, String opName) {
        Objects.requireNonNull(fn, "fn");
        return checks.define(fn, constVars, mutableVars, prop, opName);
    }

    @Override
    public final void deleteOperator(OprHandle op) {
        // Runs already pushed keep their reference; the definition is reclaimed after the last one finishes.
        checks.ownOperator(op).markDeleted();
    }

    // ---- pushes -----------------------------------------------------------------------------------

    @Override
    public final void push(OprHandle op, Context ctx, int priority, boolean profiling) {
        OpDef def = checks.ownOperator(op);
        Objects.requireNonNull(ctx, "ctx");
        pushAlone(checks.pushable(def), ctx, priority, profiling);
    }

    @Override
    public final void pushAsync(AsyncFn fn, Context ctx, List<VarHandle> constVars, List<VarHandle> mutableVars,
                                FnProperty prop, int priority, String opName) {
        pushAsync(fn, ctx, constVars, mutableVars, prop, priority, opName, Map.of());
    }

    @Override
    public final void pushAsync(AsyncFn fn, Context ctx, List<VarHandle> constVars, List<VarHandle> mutableVars,
                                FnProperty prop, int priority, String opName, Map<String, ?> args) {
        Objects.requireNonNull(fn, "fn");
        Objects.requireNonNull(ctx, "ctx");
        pushAlone(checks.define(fn, constVars, mutableVars, prop, opName).withArgs(args), ctx, priority, true);
    }

    @Override
    public final void pushSync(SyncFn fn, Context ctx, List<VarHandle> constVars, List<VarHandle> mutableVars,
                               FnProperty prop, int priority, String opName) {
        Objects.requireNonNull(fn, "fn");
        Objects.requireNonNull(ctx, "ctx");
        OpDef def = checks.define(fn, constVars, mutableVars, prop, opName);
        if (recorded(def, ctx, priority, true)) {
            return;
        }
        if (!bulks.offer(def, ctx, priority)) { // held by this thread's open bulk, or every held op pushed first
            dispatcher.submit(def, ctx, priority, true, null);
        }
    }

    @Override
    public final void pushSync(SyncFn fn, Context ctx, List<VarHandle> constVars, List<VarHandle> mutableVars,
                               FnProperty prop, int priority, String opName, Map<String, ?> args) {
        Objects.requireNonNull(fn, "fn");
        Objects.requireNonNull(ctx, "ctx");
        pushAlone(checks.define(fn, constVars, mutableVars, prop, opName).withArgs(args), ctx, priority, true);
    }

    @Override
    public final void deleteVariable(SyncFn deleteFn, Context ctx, VarHandle var) {
        Objects.requireNonNull(deleteFn, "deleteFn");
        Objects.requireNonNull(ctx, "ctx");
        OpDef def = checks.deletion(deleteFn, var);
        Captures.refuse("deleteVariable(%s)", var.name());
        pushAlone(def, ctx, 0, true);
    }

    @Override
    public final Bulk bulk(int size) {
        Captures.refuse("bulk(%d)", size);
        if (dispatcher.isClosed()) {
            throw new IllegalStateException("engine '" + name + "' is closed; bulk(" + size + ") was not opened");
        }
        return bulks.open(size);
    }

    /**
     * Pushes an op that is never merged into a bulk (async, operator runs, deletions, ops with
     * arguments, which a merged op could not keep apart): the held bulk members go first.
     */
    private void pushAlone(OpDef def, Context ctx, int priority, boolean profiling) {
        if (recorded(def, ctx, priority, profiling)) {
            return;
        }
        bulks.flushAll();
        dispatcher.submit(def, ctx, priority, profiling, null);
    }

    // ---- capture (see Capture, Graph; a graph replays itself: core.replay) ----------------------------

    /**
     * Records a validated op instead of pushing it, if the calling thread records a capture: true if
     * it was recorded (the caller pushes nothing). One volatile read when no capture is open.
     *
     * @throws IllegalStateException if the thread records a capture of another engine, or this one is closed
     */
    private boolean recorded(OpDef def, Context ctx, int priority, boolean profiling) {
        CaptureSession c = Captures.current();
        if (c == null) {
            return false;
        }
        if (dispatcher.isClosed()) {
            throw new IllegalStateException("engine '" + name + "' is closed; op '"
                    + (def.givenName() == null ? "<unnamed>" : def.givenName()) + "' was not recorded");
        }
        dispatcher.device(ctx); // the context is checked as a push checks it: an unknown device type is refused now
        c.record(dispatcher, def, ctx, priority, profiling);
        return true;
    }

    @Override
    public final boolean isCapturing() {
        CaptureSession c = Captures.current();
        return c != null && c.records(dispatcher);
    }

    @Override
    public final Capture capture() {
        if (dispatcher.isClosed()) {
            throw new IllegalStateException("engine '" + name + "' is closed; capture() was not opened");
        }
        OpBlock running = CurrentOp.get();
        if (running != null) {
            // Its pushes would be recorded instead of pushed: ops that the running op's successors may
            // need would never run, and replaying the graph from the op's thread could wait for itself.
            throw new IllegalStateException("capture() of engine '" + name + "' was called from inside op '" + running.name()
                    + "'; capture outside ops, on the thread that will replay the graph");
        }
        if (bulks.ownsOpenBulk()) {
            throw new IllegalStateException("this thread has a bulk open on engine '" + name
                    + "'; close it before capture() (a capture records ops one by one)");
        }
        return CaptureSession.open(dispatcher);
    }

    // ---- waits (see Waits) -----------------------------------------------------------------------

    @Override
    public final void waitForVar(VarHandle var) {
        Var v = checks.ownVar(var, "var");
        Captures.refuse("waitForVar(%s)", v.name());
        bulks.flushAll();
        waits.waitForVar(v, Long.MAX_VALUE, null);
    }

    @Override
    public final void waitForVar(VarHandle var, Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        Var v = checks.ownVar(var, "var");
        Captures.refuse("waitForVar(%s)", v.name());
        bulks.flushAll();
        waits.waitForVar(v, Waits.deadline(timeout), timeout);
    }

    @Override
    public final void waitForAll() {
        Captures.refuse("waitForAll()");
        bulks.flushAll();
        waits.waitForAll(Long.MAX_VALUE, null);
    }

    @Override
    public final void waitForAll(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        Captures.refuse("waitForAll()");
        bulks.flushAll();
        waits.waitForAll(Waits.deadline(timeout), timeout);
    }

    @Override
    public final CompletableFuture<Void> whenReady(VarHandle var) {
        Var v = checks.ownVar(var, "var");
        Captures.refuse("whenReady(%s)", v.name());
        bulks.flushAll();
        return waits.whenReady(v);
    }

    @Override
    public final CompletableFuture<Void> whenAllDone() {
        Captures.refuse("whenAllDone()");
        bulks.flushAll();
        return waits.whenAllDone();
    }

    @Override
    public final EngineDiagnostics diagnostics() {
        Map<String, Long> counters = new LinkedHashMap<>();
        dispatcher.counters(counters);
        counters.put("hangReports", waits.hangReports());
        return dispatcher.diag().snapshot(this::pendingOps, counters);
    }

    @Override
    public final EngineMetrics metrics() {
        return dispatcher.metrics();
    }

    /** The engine's metrics, for its worker groups ({@link EngineCounters.Owner}). */
    @Override
    public final EngineCounters counters() {
        return dispatcher.metrics();
    }

    /** The number of ops pushed and not yet finished (approximate while pushes run). */
    public final long pendingOps() {
        return dispatcher.pending().pending();
    }

    /** What the waits need of the engine. */
    private final class WaitHost implements Waits.Host {
        @Override
        public Object owner() {
            return AbstractEngine.this;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public OpBlock submitWait(OpDef def) {
            return dispatcher.submit(def, Context.cpu(), 0, false, null);
        }

        @Override
        public EngineDiagnostics diagnostics() {
            return AbstractEngine.this.diagnostics();
        }
    }

    // ---- listeners, lifecycle ---------------------------------------------------------------------

    // The lifecycle lock is held only to swap the fan-out or flip the closing state, never while waiting
    // or calling out: listener changes go on during a close, and a listener may detach itself.

    @Override
    public final void addListener(OpListener l) {
        Objects.requireNonNull(l, "listener");
        synchronized (lifecycle) {
            dispatcher.setListeners(ListenerFanout.with(dispatcher.listeners(), l, this::removeListener));
        }
    }

    @Override
    public final void removeListener(OpListener l) {
        synchronized (lifecycle) {
            dispatcher.setListeners(ListenerFanout.without(dispatcher.listeners(), l, this::removeListener));
        }
    }

    @Override
    public final void notifyShutdown() {
        dispatcher.notifyShutdown();
    }

    @Override
    public final boolean isClosed() {
        return dispatcher.isClosed();
    }

    @Override
    public final void close() {
        Captures.refuse("close() of engine '%s'", name);
        CurrentOp.refuseBlockingCall(this, name, "close()");
        bulks.shut(); // held bulk members are pushed before pushes are refused
        boolean first;
        synchronized (lifecycle) {
            first = !dispatcher.isClosed();
            dispatcher.markClosing(); // from here on pushes are refused; the drain below runs without the lock
        }
        if (!first) {
            Waits.awaitUninterruptibly(closedSignal); // another thread is closing: return when it has finished
            return;
        }
        boolean interrupted = false;
        try {
            interrupted = waits.drainForClose();
            dispatcher.stop();
            OpListener l = dispatcher.listeners();
            if (l != null) {
                l.closed(); // after the last op; the fan-out contains whatever a listener throws
            }
        } finally {
            closedSignal.countDown();
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "Engine[" + name + (dispatcher.isClosed() ? ", closed" : "") + "]";
    }
}
