package org.depengine.core;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.depengine.api.AsyncFn;
import org.depengine.api.Bulk;
import org.depengine.api.Capture;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.FnProperty;
import org.depengine.api.OprHandle;
import org.depengine.api.SyncFn;
import org.depengine.api.VarHandle;
import org.depengine.api.EngineDiagnostics;
import org.depengine.api.EngineMetrics;
import org.depengine.api.device.Stream;
import org.depengine.api.listen.OpInfo;
import org.depengine.api.listen.OpListener;
import org.depengine.api.spi.EngineConfig;
import org.depengine.core.bulk.Bulks;
import org.depengine.core.exec.EngineCounters;
import org.depengine.core.tracker.Failure;
import org.depengine.core.tracker.OpDef;
import org.depengine.core.tracker.OpHost;
import org.depengine.core.tracker.Registration;
import org.depengine.core.tracker.OpRoute;
import org.depengine.core.tracker.ReplayLinks;
import org.depengine.core.tracker.OpBlock;
import org.depengine.core.tracker.Var;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dispatch core shared by every engine: argument validation, registration with the tracker,
 * the failure and skip rules, waits, listeners, and shutdown. A subclass decides only where a ready
 * op runs ({@link #execute}, MXNet's {@code PushToExecute}) and stops its threads ({@link #stopWorkers}).
 *
 * <p>An op's life: {@code push} validates, counts the op in the pending epochs, captures the
 * listener, lets the subclass route it ({@link #prepare}), registers it on its variables and drops the
 * push guard; whoever takes its wait counter to zero dispatches it ({@link #execute}); a worker calls
 * {@link #run}, which applies the skip rules and runs the function; completion (function return,
 * callback, or skip) is the op's own ({@link OpBlock}): it calls the engine's hooks
 * ({@link #completed}), attaches failures, releases the variables (dispatching successors) and ends
 * the op's accounting.
 *
 * <p><b>Device ops.</b> A device op's function enqueues work on a stream and returns; the op is then
 * <em>launched</em> and done only when the stream's policy says so. Where the engine releases at launch
 * ({@link #releasesAtLaunch()}), the op's variables are released at launch and the op becomes a fence
 * for the ops released behind it; {@link DeviceOrdering} holds that logic.
 *
 * <p>Push validation lives in {@link PushChecks}; running one op in {@link OpExecution}; bulks in
 * {@code core.bulk}; the waits, failure reporting and the hang doctor
 * in {@link Waits}, over the unreported failures of {@link FailureLedger}; capture and replay in
 * {@link CaptureSession} (recording, with {@link Captures}: which thread records) and
 * {@link RecordedGraph} (a replay registers the recorded ops as one step, through their variables' queues
 * only at the graph's boundary accesses; {@link ReplayPlan}).
 */
// The tracker types in the subclass-facing methods are exported to the engine modules only: extending
// this class is for them, and every other module sees it only as an Engine.
@SuppressWarnings("exports")
public abstract class AbstractEngine implements Engine, OpHost, EngineCounters.Owner {
    private static final Logger LOG = LoggerFactory.getLogger(AbstractEngine.class);
    private static final int OP_ID = 8; // longs: 64 bytes

    private final String name;
    /** The configuration the engine was created with. */
    protected final EngineConfig config;
    // The op-id counter at [OP_ID], a cache line away from anything else: every push increments it, and
    // workers reading objects allocated next to a plain AtomicLong made the pusher wait for that line.
    private final AtomicLongArray opIds = new AtomicLongArray(2 * OP_ID + 1);
    private final AtomicLong varIds = new AtomicLong();
    private final PendingOps pending = new PendingOps();
    private final Registration registration = new Registration();
    private final EngineDevices devices = new EngineDevices();
    private final Object lifecycle = new Object();
    private volatile ListenerFanout listener; // null when nobody listens: the one volatile read per push
    private volatile boolean closing; // written under lifecycle
    private final CountDownLatch closedSignal = new CountDownLatch(1); // released when close() has finished
    private volatile boolean shutdownNotified;
    private final Diagnostics diag;
    private final FailureLedger failures = new FailureLedger();
    private final PushChecks checks;
    private final Waits waits;
    private final Bulks bulks;
    private final OpExecution execution;
    private final DeviceOrdering ordering;
    private final EngineCounters counters;

    /**
     * @param name the engine's name ({@link #name()})
     * @param config its settings
     */
    @SuppressWarnings("this-escape") // the parts made here use the engine only after a push or a wait
    protected AbstractEngine(String name, EngineConfig config) {
        this.name = Objects.requireNonNull(name, "name");
        this.config = Objects.requireNonNull(config, "config");
        this.diag = new Diagnostics(this);
        this.ordering = new DeviceOrdering(diag);
        this.checks = new PushChecks(this);
        this.waits = new Waits(this, pending, diag, failures, config);
        this.bulks = new Bulks(this, new EngineBulkHost(this, failures));
        this.execution = new OpExecution(this, ordering, diag);
        this.counters = new EngineCounters(name, config.get(CoreSettings.TIMING_SAMPLE_INTERVAL),
                () -> opIds.get(OP_ID), this::pendingOps, diag::waiting);
    }

    // ---- what a subclass decides ------------------------------------------------------------------

    /**
     * Runs, or hands to a worker, an op whose dependencies are all met. Must not throw for a valid op.
     *
     * @param pusherThread whether the caller is the thread that pushed the op, inside that push
     */
    protected abstract void execute(OpBlock op, boolean pusherThread);

    /** Routes an op before it is registered ({@link OpBlock#setRoute}); the default does nothing. */
    protected void prepare(OpBlock op, EngineDevice device) {
    }

    /**
     * Routes a replay's block pushed again ({@link OpBlock#reuse}), whose route is cleared:
     * {@code previous} is the route it had, which an engine may recycle if nothing else holds it;
     * {@code fromOwnOp}: the replay is made from inside an op of this engine ({@link #insideOwnOp()},
     * computed once per replay). The default is {@link #prepare}.
     */
    protected void prepareAgain(OpBlock op, EngineDevice device, OpRoute previous, boolean fromOwnOp) {
        prepare(op, device);
    }

    /** Called on the pusher after a successful push; the naive engine waits for the op here. */
    protected void afterPush(OpBlock op) {
    }

    /** Stops and joins the engine's threads; called by {@link #close()} after every op finished. */
    protected abstract void stopWorkers();

    /**
     * Whether a device op releases its variables when launched rather than when done (see the class
     * comment). An engine returns true when its device workers own their streams, so that an op
     * released behind a launched one on the same worker lands on the same stream; the default is false.
     */
    protected boolean releasesAtLaunch() {
        return false;
    }

    /** Whether the calling thread is running an op of this engine right now (a nested push). */
    protected final boolean insideOwnOp() {
        return CurrentOp.ownedBy(this);
    }

    /** The name of an engine thread: {@code depengine-<engine>-<role>}. */
    protected final String threadName(String role) {
        return "depengine-" + name + "-" + role;
    }

    // ---- variables and operators ------------------------------------------------------------------

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final VarHandle newVariable() {
        return diag.track(new Var(this, "var#" + varIds.incrementAndGet()));
    }

    @Override
    public final VarHandle newVariable(String varName) {
        Objects.requireNonNull(varName, "name");
        return diag.track(new Var(this, varName));
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
        Objects.requireNonNull(fn, "fn");
        Objects.requireNonNull(ctx, "ctx");
        pushAlone(checks.define(fn, constVars, mutableVars, prop, opName), ctx, priority, true);
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
            submit(def, ctx, priority, true);
        }
    }

    @Override
    public final Bulk bulk(int size) {
        Captures.refuse("bulk(%d)", size);
        if (closing) {
            throw new IllegalStateException("engine '" + name + "' is closed; bulk(" + size + ") was not opened");
        }
        return bulks.open(size);
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

    /**
     * Pushes an op that is never merged into a bulk (async, operator runs, deletions, ops with
     * arguments, which a merged op could not keep apart): the held bulk members go first.
     */
    private void pushAlone(OpDef def, Context ctx, int priority, boolean profiling) {
        if (recorded(def, ctx, priority, profiling)) {
            return;
        }
        bulks.flushAll();
        submit(def, ctx, priority, profiling);
    }

    // ---- capture and replay (see Capture, Graph) ---------------------------------------------------

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
        if (closing) {
            throw new IllegalStateException("engine '" + name + "' is closed; op '"
                    + (def.givenName() == null ? "<unnamed>" : def.givenName()) + "' was not recorded");
        }
        device(ctx); // the context is checked as a push checks it: an unknown device type is refused now
        c.record(this, def, ctx, priority, profiling);
        return true;
    }

    @Override
    public final boolean isCapturing() {
        CaptureSession c = Captures.current();
        return c != null && c.records(this);
    }

    @Override
    public final Capture capture() {
        if (closing) {
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
        return CaptureSession.open(this);
    }

    /**
     * Pushes every op of {@code g} again, in order, from the calling thread (see {@link org.depengine.api.Graph#replay()}).
     */
    final void replay(RecordedGraph g) {
        Captures.refuse("replay() of %s", g);
        if (closing) {
            throw closedFor(g);
        }
        OpBlock current = CurrentOp.get();
        if (current != null && current.replayOf() == g) {
            throw new IllegalStateException("replay() of " + g + " was called from inside its own op '" + current.name()
                    + "': the replay would wait for the op that calls it. Replay it from outside its ops");
        }
        g.requireLive();
        long n = g.nextReplay();
        bulks.flushAll();
        RecordedOp[] rec = g.ops();
        ReplayPlan plan = g.plan();
        boolean fromOwnOp = current != null && current.def().owner() == this;
        // One pending-count entry and one id range for the whole replay: its ops are pushed as one step.
        PendingOps.Epoch epoch = pending.enter(rec.length);
        OpBlock[] kept = null;
        OpBlock[] ops;
        ListenerFanout l = listener;
        int made = 0;
        boolean idsTaken = false;
        try {
            if (closing) {
                throw closedFor(g);
            }
            long firstId = opIds.getAndAdd(OP_ID, rec.length) + 1;
            idsTaken = true;
            kept = g.takeBlocks(); // a retired set of an earlier replay, or null
            ops = kept != null ? kept : new OpBlock[rec.length];
            for (; made < rec.length; made++) {
                ops[made] = replayed(rec[made], plan.links[made], ops, kept != null ? ops[made] : null, l, g, n,
                        firstId + made, epoch, fromOwnOp);
            }
        } catch (Throwable t) {
            // Nothing is registered yet: leaving the epoch undoes the ops counted (see submit). A kept set
            // is dropped, not given back: its blocks made so far are not retired.
            for (int i = 0; i < rec.length; i++) {
                epoch.exit();
            }
            if (idsTaken) {
                counters.notPushed(rec.length);
            }
            throw t;
        }
        counters.replayed(rec.length);
        if (l != null && l.wantsPushed) {
            for (OpBlock op : ops) {
                l.pushed(op, System.nanoTime()); // the fan-out contains whatever a listener throws
            }
        }
        Var refused = registration.registerReplay(ops, plan.registrations);
        // Guards drop in order, each op's afterPush before the next (the naive engine runs them one by one);
        // an op without a guard goes when its last predecessor in the replay completes.
        for (int i = 0; i < ops.length; i++) {
            OpBlock op = ops[i];
            if (plan.links[i].guarded() && op.dropGuard()) {
                dispatch(op, true);
            }
            afterPush(op);
        }
        g.giveBack(ops); // reused by a later replay once every block is retired
        if (refused != null) {
            throw ops[0].cancellation();
        }
    }

    private IllegalStateException closedFor(RecordedGraph g) {
        return new IllegalStateException("engine '" + name + "' is closed; " + g + " was not replayed. "
                + "Replay before close(), or capture the graph again on a new engine");
    }

    /**
     * One op of replay {@code n} of {@code g}, made and routed as {@link #submit} does, not yet
     * registered, with its id and the pending count it entered: {@code old}, the same op's retired block
     * of an earlier replay ({@link OpBlock#isRetired}), is reused unless it took part in release at
     * launch or its device changed; else a new block is made, whose spare queue nodes are made once for
     * all its replays. {@code fromOwnOp}: the replay is made from inside an op of this engine.
     */
    private OpBlock replayed(RecordedOp r, ReplayLinks links, OpBlock[] peers, OpBlock old, ListenerFanout l,
                             RecordedGraph g, long n, long id, PendingOps.Epoch epoch, boolean fromOwnOp) {
        EngineDevice device = device(r.ctx());
        OpBlock op;
        if (old != null && old.fencing() == null && old.device() == device.forOps()) { // retired: takeBlocks
            OpRoute previous = old.route();
            old.reuse(id, l, epoch);
            op = old;
            op.setReplay(g, n);
            prepareAgain(op, device, previous, fromOwnOp);
        } else {
            op = new OpBlock(r.def(), this, r.ctx(), r.priority(), r.profiling(), id, l, epoch, device.forOps());
            op.setReplay(g, n);
            op.linkReplay(links, peers);
            prepare(op, device);
        }
        return op;
    }

    /** The engine device of a context, opened on first use. */
    protected final EngineDevice device(Context ctx) {
        return devices.get(ctx);
    }

    /** Registers a validated op; package-private for the waits' internal ops. */
    final OpBlock submit(OpDef def, Context ctx, int priority, boolean profiling) {
        return submit(def, ctx, priority, profiling, null);
    }

    /** As above; {@code registered} runs right after the op is registered on its variables (a bulk's flush). */
    final OpBlock submit(OpDef def, Context ctx, int priority, boolean profiling, Runnable registered) {
        EngineDevice device = def.kind() == OpDef.Kind.WAIT ? null : device(ctx);
        PendingOps.Epoch epoch = pending.enter();
        ListenerFanout l = def.kind() == OpDef.Kind.WAIT ? null : listener; // waits are not ops of the user's
        OpBlock op = null;
        try {
            if (closing && def.kind() != OpDef.Kind.WAIT) {
                throw new IllegalStateException("engine '" + name + "' is closed; op '"
                        + (def.givenName() == null ? "<unnamed>" : def.givenName()) + "' was not pushed. Push before close(), or create a new engine");
            }
            op = new OpBlock(def, this, ctx, priority, profiling, opIds.incrementAndGet(OP_ID), l, epoch,
                    device == null ? null : device.forOps());
            prepare(op, device);
        } catch (Throwable t) {
            // A push registers its op fully or leaves no trace: nothing is registered yet, so leaving
            // the epoch undoes it (a phantom pending op would hang every later waitForAll and close).
            epoch.exit();
            if (op != null) {
                counters.notPushed(1); // its id was taken
            }
            throw t;
        }
        if (def.kind() == OpDef.Kind.WAIT) {
            counters.notPushed(1); // a wait marker took an id
        }
        if (l != null && l.wantsPushed) {
            l.pushed(op, System.nanoTime()); // the fan-out contains whatever a listener throws
        }
        // Atomic with respect to other pushes, with no engine-wide lock: see tracker.Registration.
        RuntimeException cancelled = op.register();
        if (registered != null) {
            registered.run();
        }
        if (op.dropGuard()) {
            dispatch(op, true);
        }
        afterPush(op);
        if (cancelled != null) {
            throw cancelled;
        }
        return op;
    }

    // ---- running ----------------------------------------------------------------------------------

    @Override
    public final void ready(OpBlock op) {
        dispatch(op, false);
    }

    private void dispatch(OpBlock op, boolean pusherThread) {
        if (op.hasFences() && ordering.deferredBehindFences(op)) {
            return; // dispatched again, from the last fence's completion, when its device work is done
        }
        OpListener l = op.listener();
        if (l != null) {
            l.ready(op, System.nanoTime());
        }
        if (op.def().kind() == OpDef.Kind.WAIT) {
            run(op, null); // it only wakes a waiting thread: no worker needed
            return;
        }
        execute(op, pusherThread);
    }

    /**
     * Runs a ready op on the calling thread: applies the skip rules, runs the function, and completes
     * the op when the function returns (sync) or leaves that to its callback (async). Never throws.
     *
     * @param ownStream the calling worker's stream, or null to use the device's shared stream (bound
     *     to the calling thread first)
     */
    protected final void run(OpBlock op, Stream ownStream) {
        execution.run(op, ownStream);
    }

    /**
     * Fails a ready op that cannot run because its stream could not be had (the device plugin failed
     * to make or bind it), after the skip rules: an op that would be skipped is skipped. Never throws.
     */
    protected final void refuse(OpBlock op, Throwable cause) {
        execution.refuse(op, cause);
        op.endRun();
    }

    /** Whether {@link #notifyShutdown()} was called: from then on only DELETE_VAR ops run. */
    final boolean shutdownNotified() {
        return shutdownNotified;
    }

    @Override
    public final Registration registration() {
        return registration;
    }

    /** The engine's hooks on an op's completion; the op then releases its variables and finishes itself. */
    @Override
    public final void completed(OpBlock op, Failure own) {
        if (own != null) {
            counters.failed();
            failures.record(own);
            LOG.debug("op '{}' failed", op.name(), own.error());
        }
        OpListener l = op.listener();
        if (l != null) {
            l.finished(op, System.nanoTime());
        }
        if (op.isInFlight()) {
            diag.landed(op); // it was flagged before it completed: see OpBlock.markInFlight
        }
        if (own == null && op.outcome() == OpInfo.Outcome.SKIPPED && op.def().kind() != OpDef.Kind.WAIT) {
            counters.skipped();
        }
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
        Map<String, Long> counters = Diagnostics.counters(ordering, waits.hangReports);
        addCounters(counters);
        return diag.snapshot(this::pendingOps, counters);
    }

    @Override
    public final EngineMetrics metrics() {
        return counters;
    }

    /** The engine's metrics, for its worker groups ({@link EngineCounters.Owner}). */
    @Override
    public final EngineCounters counters() {
        return counters;
    }

    /** Adds the engine's own counters (its workers' scheduling) to {@link #diagnostics()}'s; none by default. */
    protected void addCounters(Map<String, Long> counters) {
    }

    /** The number of ops pushed and not yet finished (approximate while pushes run). */
    public final long pendingOps() {
        return pending.pending();
    }

    // ---- listeners, lifecycle ---------------------------------------------------------------------

    // The lifecycle lock is held only to swap the fan-out or flip the closing state, never while waiting
    // or calling out: listener changes go on during a close, and a listener may detach itself.

    @Override
    public final void addListener(OpListener l) {
        Objects.requireNonNull(l, "listener");
        synchronized (lifecycle) {
            listener = ListenerFanout.with(listener, l, this::removeListener);
        }
    }

    @Override
    public final void removeListener(OpListener l) {
        synchronized (lifecycle) {
            listener = ListenerFanout.without(listener, l, this::removeListener);
        }
    }

    @Override
    public final void notifyShutdown() {
        shutdownNotified = true;
    }

    @Override
    public final boolean isClosed() {
        return closing;
    }

    @Override
    public final void close() {
        Captures.refuse("close() of engine '%s'", name);
        CurrentOp.refuseBlockingCall(this, "close()");
        bulks.shut(); // held bulk members are pushed before pushes are refused
        boolean first;
        synchronized (lifecycle) {
            first = !closing;
            closing = true; // from here on pushes are refused; the drain below runs without the lock
        }
        boolean interrupted = false;
        if (!first) {
            Waits.awaitUninterruptibly(closedSignal); // another thread is closing: return when it has finished
            return;
        }
        try {
            interrupted = waits.drainForClose();
            stopWorkers();
            devices.close();
            OpListener l = listener;
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
        return "Engine[" + name + (closing ? ", closed" : "") + "]";
    }
}
