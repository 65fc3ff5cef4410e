package org.depengine.core;

import java.time.Duration;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.LinkedHashSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.depengine.api.AsyncFn;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.EngineException;
import org.depengine.api.FnProperty;
import org.depengine.api.OprHandle;
import org.depengine.api.SyncFn;
import org.depengine.api.VarHandle;
import org.depengine.api.WaitTimeoutException;
import org.depengine.api.EngineDiagnostics;
import org.depengine.api.device.Devices;
import org.depengine.api.device.Event;
import org.depengine.api.device.Stream;
import org.depengine.api.device.StreamKind;
import org.depengine.api.device.StreamPolicy;
import org.depengine.api.listen.OpListener;
import org.depengine.api.spi.EngineConfig;
import org.depengine.core.exec.EngineThread;
import org.depengine.core.tracker.Failure;
import org.depengine.core.tracker.OpDef;
import org.depengine.core.tracker.OpHost;
import org.depengine.core.tracker.OprBlock;
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
 * callback, or skip) attaches failures, releases the variables (dispatching successors) and ends
 * the op's accounting.
 *
 * <p><b>Device ops.</b> A device op's function enqueues work on a stream and returns; the op is then
 * <em>launched</em> and done only when the stream's policy says so. Where the engine releases at launch
 * ({@link #releasesAtLaunch()}), the op's variables are released at launch and the op becomes a fence
 * for the ops released behind it (see {@link OprBlock}): before such an op is dispatched, each fence
 * still running on the device is either left to stream order (same stream), turned into a device-side
 * wait on the fence's event (another stream of the same device, if the device can), or waited for on
 * the host by deferring the op until the fence is done (the CPU, other devices, internal ops). No
 * thread ever blocks on a device.
 *
 * <p><b>Hang doctor.</b> A wait that takes longer than {@value #HANG_DOCTOR_PROPERTY} milliseconds
 * (default {@value #HANG_DOCTOR_DEFAULT_MS}; 0 turns it off) logs {@link #diagnostics()} once, at WARN,
 * and goes on waiting.
 */
public abstract class AbstractEngine implements Engine, OpHost {
    private static final Logger LOG = LoggerFactory.getLogger(AbstractEngine.class);
    /** The op running on a thread that is not an {@link EngineThread} (pushers running inline ops). */
    private static final ThreadLocal<OprBlock> CURRENT = new ThreadLocal<>();
    private static final Var[] NO_VARS = new Var[0];
    private static final SyncFn NOTHING = ctx -> { };
    private static final int LINEAR_DEDUP_LIMIT = 32;
    /** The setting of the hang doctor's threshold in milliseconds; 0 turns it off. */
    public static final String HANG_DOCTOR_PROPERTY = "depengine.hangDoctorMs";
    /** The hang doctor's default threshold. */
    public static final int HANG_DOCTOR_DEFAULT_MS = 60_000;

    private final String name;
    /** The configuration the engine was created with. */
    protected final EngineConfig config;
    private final AtomicLong opIds = new AtomicLong();
    private final AtomicLong varIds = new AtomicLong();
    private final PendingOps pending = new PendingOps();
    // Unreported failures in completion order; a failure reported by waitForVar leaves at once, so
    // that nothing keeps it (and its throwable) once it has been reported. Guarded by itself: failures
    // are rare, and removal must be O(1).
    private final LinkedHashSet<Failure> failures = new LinkedHashSet<>();
    private final ConcurrentHashMap<Context, DeviceSlot> devices = new ConcurrentHashMap<>();
    private volatile LastSlot lastSlot; // the slot looked up last: most pushes go to the same context

    private record LastSlot(Context key, DeviceSlot slot) {
    }
    private final Object lifecycle = new Object();
    private final Object registration = new Object();
    private volatile OpListener listener; // null when nobody listens: the one volatile read per push
    private volatile boolean closing; // written under lifecycle
    private final CountDownLatch closedSignal = new CountDownLatch(1); // released when close() has finished
    private volatile boolean shutdownNotified;
    private final int hangDoctorMs;
    private final Diagnostics diag = new Diagnostics(this);
    // counters of the device paths (see EngineDiagnostics#counters)
    final LongAdder launchedEarly = new LongAdder();
    final LongAdder sameStreamStarts = new LongAdder();
    final LongAdder deviceWaits = new LongAdder();
    final LongAdder hostDeferrals = new LongAdder();
    final LongAdder hangReports = new LongAdder();

    /**
     * @param name the engine's name ({@link #name()})
     * @param config its settings
     */
    protected AbstractEngine(String name, EngineConfig config) {
        this.name = Objects.requireNonNull(name, "name");
        this.config = Objects.requireNonNull(config, "config");
        this.hangDoctorMs = config.getInt(HANG_DOCTOR_PROPERTY, HANG_DOCTOR_DEFAULT_MS, 0, Integer.MAX_VALUE);
    }

    // ---- what a subclass decides ------------------------------------------------------------------

    /**
     * Runs, or hands to a worker, an op whose dependencies are all met. Must not throw for a valid op.
     *
     * @param pusherThread whether the caller is the thread that pushed the op, inside that push
     */
    protected abstract void execute(OprBlock op, boolean pusherThread);

    /** Routes an op before it is registered (sets {@link OprBlock#route}); the default does nothing. */
    protected void prepare(OprBlock op, DeviceSlot slot) {
    }

    /** Called on the pusher after a successful push; the naive engine waits for the op here. */
    protected void afterPush(OprBlock op) {
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
        Thread t = Thread.currentThread();
        OprBlock cur = t instanceof EngineThread ? ((EngineThread) t).currentOp : CURRENT.get();
        return cur != null && cur.def().owner() == this;
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
        return define(fn, constVars, mutableVars, prop, opName);
    }

    @Override
    public final void deleteOperator(OprHandle op) {
        OpDef def = ownOperator(op);
        if (!def.markDeleted()) {
            throw new IllegalStateException(def + " was already deleted; delete an operator once");
        }
        // Runs already pushed keep their reference; the definition is reclaimed after the last one finishes.
    }

    // ---- pushes -----------------------------------------------------------------------------------

    @Override
    public final void push(OprHandle op, Context ctx, int priority, boolean profiling) {
        OpDef def = ownOperator(op);
        Objects.requireNonNull(ctx, "ctx");
        if (def.isDeleted()) {
            throw new IllegalStateException(def + " was deleted; it cannot be pushed any more (make a new one with newOperator)");
        }
        for (Var v : def.reads()) {
            requireLive(v, def.name());
        }
        for (Var v : def.writes()) {
            requireLive(v, def.name());
        }
        submit(def, ctx, priority, profiling);
    }

    @Override
    public final void pushAsync(AsyncFn fn, Context ctx, List<VarHandle> constVars, List<VarHandle> mutableVars,
                                FnProperty prop, int priority, String opName) {
        Objects.requireNonNull(fn, "fn");
        Objects.requireNonNull(ctx, "ctx");
        submit(define(fn, constVars, mutableVars, prop, opName), ctx, priority, true);
    }

    @Override
    public final void pushSync(SyncFn fn, Context ctx, List<VarHandle> constVars, List<VarHandle> mutableVars,
                               FnProperty prop, int priority, String opName) {
        Objects.requireNonNull(fn, "fn");
        Objects.requireNonNull(ctx, "ctx");
        submit(define(fn, constVars, mutableVars, prop, opName), ctx, priority, true);
    }

    @Override
    public final void pushAsync(AsyncFn fn, Context ctx, List<VarHandle> constVars, List<VarHandle> mutableVars,
                                FnProperty prop, int priority, String opName, java.util.Map<String, ?> args) {
        Objects.requireNonNull(fn, "fn");
        Objects.requireNonNull(ctx, "ctx");
        submit(define(fn, constVars, mutableVars, prop, opName).withArgs(args), ctx, priority, true);
    }

    @Override
    public final void pushSync(SyncFn fn, Context ctx, List<VarHandle> constVars, List<VarHandle> mutableVars,
                               FnProperty prop, int priority, String opName, java.util.Map<String, ?> args) {
        Objects.requireNonNull(fn, "fn");
        Objects.requireNonNull(ctx, "ctx");
        submit(define(fn, constVars, mutableVars, prop, opName).withArgs(args), ctx, priority, true);
    }

    @Override
    public final void deleteVariable(SyncFn deleteFn, Context ctx, VarHandle var) {
        Objects.requireNonNull(deleteFn, "deleteFn");
        Objects.requireNonNull(ctx, "ctx");
        Var v = ownVar(var, "var");
        if (v.isDeleted()) {
            throw new IllegalStateException(v + " was already deleted; delete a variable once");
        }
        OpDef def = new OpDef(this, deleteFn, NO_VARS, new Var[] {v}, FnProperty.DELETE_VAR,
                "deleteVariable(" + v.name() + ")", OpDef.Kind.DELETE_VAR);
        submit(def, ctx, 0, true);
    }

    private OpDef define(Object fn, List<VarHandle> constVars, List<VarHandle> mutableVars, FnProperty prop, String opName) {
        Var[] reads = toVars(constVars, "constVars", opName);
        Var[] writes = toVars(mutableVars, "mutableVars", opName);
        Objects.requireNonNull(prop, "prop");
        for (Var w : writes) {
            if (indexOf(reads, reads.length, w) >= 0) {
                throw new IllegalArgumentException(w + " is listed in both constVars and mutableVars of op '"
                        + (opName == null ? "<unnamed>" : opName) + "'; list it only in mutableVars (a write may also read)");
            }
        }
        return new OpDef(this, fn, reads, writes, prop, opName, OpDef.Kind.USER);
    }

    private Var[] toVars(List<VarHandle> list, String arg, String opName) {
        Objects.requireNonNull(list, arg);
        int n = list.size();
        if (n == 0) {
            return NO_VARS;
        }
        Var[] out = new Var[n];
        Map<Var, Boolean> seen = n > LINEAR_DEDUP_LIMIT ? new IdentityHashMap<>(n * 2) : null;
        int k = 0;
        for (int i = 0; i < n; i++) {
            VarHandle h = list.get(i);
            if (h == null) {
                throw new NullPointerException(arg + "[" + i + "] is null");
            }
            if (!(h instanceof Var) || ((Var) h).owner() != this) {
                ownVar(h, arg + "[" + i + "]"); // throws, naming the argument (built only here: pushes are hot)
            }
            Var v = (Var) h;
            requireLive(v, opName == null ? "<unnamed>" : opName);
            boolean dup = seen != null ? seen.put(v, Boolean.TRUE) != null : indexOf(out, k, v) >= 0;
            if (!dup) {
                out[k++] = v;
            }
        }
        return k == n ? out : Arrays.copyOf(out, k);
    }

    private static int indexOf(Var[] vars, int len, Var v) {
        for (int i = 0; i < len; i++) {
            if (vars[i] == v) {
                return i;
            }
        }
        return -1;
    }

    private Var ownVar(VarHandle h, String arg) {
        Objects.requireNonNull(h, arg);
        if (!(h instanceof Var) || ((Var) h).owner() != this) {
            throw new IllegalArgumentException(arg + " (" + h.name() + ") belongs to another engine; use variables made by this engine's newVariable()");
        }
        return (Var) h;
    }

    private OpDef ownOperator(OprHandle h) {
        Objects.requireNonNull(h, "op");
        if (!(h instanceof OpDef) || ((OpDef) h).owner() != this) {
            throw new IllegalArgumentException("operator '" + h.name() + "' belongs to another engine; use operators made by this engine's newOperator()");
        }
        return (OpDef) h;
    }

    private static void requireLive(Var v, String opName) {
        if (v.isDeleted()) {
            throw new IllegalStateException(v + " was deleted; it cannot be used by op '" + opName
                    + "' (deleteVariable makes a variable unusable from the call on)");
        }
    }

    /** The device slot of a context, opened on first use. */
    protected final DeviceSlot slot(Context ctx) {
        LastSlot last = lastSlot;
        if (last != null && last.key == ctx) {
            return last.slot; // a pusher usually pushes to the same Context instance again and again
        }
        DeviceSlot s = devices.get(ctx);
        if (s == null) {
            // Acquired for this engine; released in close(), which lets the provider close its devices.
            s = devices.computeIfAbsent(ctx, c -> new DeviceSlot(c, Devices.acquire(c)));
        }
        lastSlot = new LastSlot(ctx, s);
        return s;
    }

    private OprBlock submit(OpDef def, Context ctx, int priority, boolean profiling) {
        DeviceSlot slot = def.kind() == OpDef.Kind.WAIT ? null : slot(ctx);
        PendingOps.Epoch epoch = pending.enter();
        OpListener l = def.kind() == OpDef.Kind.WAIT ? null : listener; // waits are not ops of the user's
        OprBlock op;
        try {
            if (closing && def.kind() != OpDef.Kind.WAIT) {
                throw new IllegalStateException("engine '" + name + "' is closed; op '"
                        + (def.givenName() == null ? "<unnamed>" : def.givenName()) + "' was not pushed. Push before close(), or create a new engine");
            }
            op = new OprBlock(def, this, ctx, priority, profiling, opIds.incrementAndGet(), l);
            op.accounting = epoch;
            op.slot = slot;
            prepare(op, slot);
        } catch (Throwable t) {
            // A push registers its op fully or leaves no trace: nothing is registered yet, so leaving
            // the epoch undoes it (a phantom pending op would hang every later waitForAll and close).
            epoch.exit();
            throw t;
        }
        if (l != null) {
            l.pushed(op, System.nanoTime()); // the fan-out contains whatever a listener throws
        }
        RuntimeException cancelled;
        // One op's registrations on all its variables must be atomic with respect to other pushes:
        // otherwise two concurrent pushes (X reads a writes b, Y reads b writes a) can each be granted
        // their read and queue their write behind the other's read, a cycle. The lock gives every push
        // a place in one total order; completions never take it. Ops with a single variable take it
        // too: skipping it let one slip between another push's registrations, which respects every
        // variable's order but not the pushing threads' order across variables (the long form of the
        // concurrent-pusher conformance test found such a cycle).
        synchronized (registration) {
            cancelled = op.register();
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
    public final void ready(OprBlock op) {
        dispatch(op, false);
    }

    private void dispatch(OprBlock op, boolean pusherThread) {
        if (op.hasFences() && deferredBehindFences(op)) {
            return; // dispatched again, from the last fence's completion, when its device work is done
        }
        OpListener l = op.listener();
        if (l != null) {
            op.readyNanos = System.nanoTime();
            l.ready(op, op.readyNanos);
        }
        if (op.def().kind() == OpDef.Kind.WAIT) {
            run(op, null); // it only wakes a waiting thread: no worker needed
            return;
        }
        execute(op, pusherThread);
    }

    /**
     * Decides, for each launched producer the op was released behind, how the op waits for it (see the
     * class comment). Keeps the fences to wait for on the device; defers the op on the host behind the
     * others.
     *
     * @return true if the op was deferred (not to be dispatched now)
     */
    private boolean deferredBehindFences(OprBlock op) {
        OprBlock[] fences = op.takeFences();
        if (fences == null) {
            return false;
        }
        boolean onDevice = canWaitOnDevice(op);
        int kept = 0;
        op.armDeferral();
        for (OprBlock f : fences) {
            if (!f.isFence()) {
                continue; // done already
            }
            if (onDevice && f.slot == op.slot && f.doneEvent() != null) {
                fences[kept++] = f;
            } else if (f.deferUntilDeviceDone(op)) {
                hostDeferrals.increment();
            }
        }
        if (kept > 0) {
            op.keepDeviceFences(kept == fences.length ? fences : Arrays.copyOf(fences, kept));
        }
        return !op.dropDeferralGuard();
    }

    /** Whether the op can wait for a producer of its own device on the device (a sync user op on a stream). */
    private static boolean canWaitOnDevice(OprBlock op) {
        OpDef def = op.def();
        return def.kind() == OpDef.Kind.USER && def.isSync() && op.slot != null && !op.context().isCpu()
                && ((DeviceSlot) op.slot).supportsStreamWait();
    }

    /** Makes {@code stream} wait, on the device, for the fences kept at dispatch that are still running. */
    private void waitOnDevice(OprBlock[] fences, Stream stream) {
        for (OprBlock f : fences) {
            if (!f.isFence()) {
                continue;
            }
            if (f.startedStream() == stream) {
                sameStreamStarts.increment(); // stream order is enough
            } else {
                PluginGuard.waitFor(((DeviceSlot) f.slot).context(), stream, f.doneEvent());
                deviceWaits.increment();
            }
        }
    }

    /**
     * Runs a ready op on the calling thread: applies the skip rules, runs the function, and completes
     * the op when the function returns (sync) or leaves that to its callback (async). Never throws.
     *
     * @param ownStream the calling worker's stream, or null to use the device's shared stream (bound
     *     to the calling thread first)
     */
    protected final void run(OprBlock op, Stream ownStream) {
        OpDef def = op.def();
        OpListener l = op.listener();
        Stream stream = ownStream;
        StreamKind kind = StreamKind.of(def.prop());
        try {
            if (stream == null && op.slot != null) {
                DeviceSlot slot = (DeviceSlot) op.slot;
                stream = slot.sharedStream(kind);
                PluginGuard.bind(slot.context(), stream);
            }
        } catch (Throwable e) {
            refuse(op, e);
            return;
        }
        op.start(stream);
        if (l != null) {
            l.started(op, System.nanoTime());
        }
        // After notifyShutdown only ops with the DELETE_VAR property run (deletions and user ops alike).
        if (op.cancellation() != null || (shutdownNotified && def.kind() == OpDef.Kind.USER && def.prop() != FnProperty.DELETE_VAR)) {
            op.skip(null);
            return;
        }
        if (def.kind() == OpDef.Kind.USER && def.prop() != FnProperty.NO_SKIP) {
            Failure inherited = op.inheritedFailure();
            if (inherited != null) {
                op.skip(inherited);
                return;
            }
        }
        Thread t = Thread.currentThread();
        EngineThread et = t instanceof EngineThread ? (EngineThread) t : null;
        OprBlock outer = et != null ? et.currentOp : CURRENT.get();
        setCurrent(et, op);
        Throwable thrown = null;
        try {
            OprBlock[] fences = op.deviceFences();
            if (fences != null) {
                op.keepDeviceFences(null); // used once: a finished op keeps no fence alive
                waitOnDevice(fences, stream);
            }
            if (def.isSync()) {
                def.syncFn().run(op);
            } else {
                def.asyncFn().run(op, op);
            }
        } catch (Throwable e) {
            thrown = e;
        } finally {
            setCurrent(et, outer);
        }
        if (thrown != null) {
            fnThrew(op, thrown);
        } else if (def.isSync()) {
            DeviceSlot slot = (DeviceSlot) op.slot;
            StreamPolicy policy;
            boolean doneOnReturn;
            try {
                policy = slot == null ? StreamPolicy.SYNCHRONOUS : slot.policy(kind);
                doneOnReturn = slot == null || PluginGuard.doneOnReturn(slot.context(), policy);
            } catch (Throwable e) {
                op.fail(e); // the plugin gave no usable policy: the op cannot tell when it is done
                return;
            }
            if (doneOnReturn) {
                op.complete();
            } else {
                launched(op, slot, policy, stream);
            }
        } else if (!op.isCompleted()) {
            diag.inFlight(op); // the callback is still to come
        }
    }

    /**
     * Fails a ready op that cannot run because its stream could not be had (the device plugin failed
     * to make or bind it), after the skip rules: an op that would be skipped is skipped. Never throws.
     */
    protected final void refuse(OprBlock op, Throwable cause) {
        op.start(null);
        OpDef def = op.def();
        Failure inherited = def.kind() == OpDef.Kind.USER && def.prop() != FnProperty.NO_SKIP ? op.inheritedFailure() : null;
        if (op.cancellation() != null) {
            op.skip(null);
        } else if (inherited != null) {
            op.skip(inherited);
        } else {
            op.fail(cause);
        }
    }

    /** The function of a device op returned: its work is enqueued on {@code stream}. */
    private void launched(OprBlock op, DeviceSlot slot, StreamPolicy policy, Stream stream) {
        OpListener l = op.listener();
        if (l != null) {
            l.launched(op, System.nanoTime());
        }
        DeviceDone done = new DeviceDone(op, slot, stream);
        try {
            if (op.def().kind() == OpDef.Kind.USER && releasesAtLaunch()) {
                Event doneEvent = slot.supportsStreamWait() ? PluginGuard.record(slot.context(), stream) : null;
                op.launch(doneEvent);
                launchedEarly.increment();
                diag.inFlight(op);
                op.releaseVariables();
            } else {
                diag.inFlight(op);
            }
            PluginGuard.whenDone(slot.context(), policy, stream, done);
        } catch (Throwable e) {
            // The device refused the event or the completion hook: the op fails now rather than hanging,
            // unless the policy reported it done before throwing.
            if (done.claim()) {
                op.fail(e);
            } else {
                LOG.warn("device op '{}' on {}: the plugin threw after reporting it done; ignored", op.name(),
                        slot.context(), e);
            }
        }
    }

    /**
     * The done report a device op's policy runs: the first run completes the op, a second is ignored
     * (logged), so that a plugin calling back twice cannot complete an op twice.
     */
    private static final class DeviceDone implements Runnable {
        private static final java.lang.invoke.VarHandle CLAIMED;

        static {
            try {
                CLAIMED = java.lang.invoke.MethodHandles.lookup().findVarHandle(DeviceDone.class, "claimed", boolean.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private final OprBlock op;
        private final DeviceSlot slot;
        private final Stream stream;
        @SuppressWarnings("unused") // accessed through CLAIMED
        private volatile boolean claimed;

        DeviceDone(OprBlock op, DeviceSlot slot, Stream stream) {
            this.op = op;
            this.slot = slot;
            this.stream = stream;
        }

        /** True for the one caller that may complete the op. */
        boolean claim() {
            return CLAIMED.compareAndSet(this, false, true);
        }

        @Override
        public void run() {
            if (!claim()) {
                PluginGuard.doneTwice(slot, op.name());
                return;
            }
            deviceFinished(op, slot, stream);
        }
    }

    /** The policy says the device work of {@code op} is done (on a driver or worker thread). */
    private static void deviceFinished(OprBlock op, DeviceSlot slot, Stream stream) {
        try {
            Throwable asyncError = PluginGuard.takeAsyncError(slot.context(), stream);
            if (asyncError != null) {
                op.fail(asyncError);
            } else {
                op.complete();
            }
        } catch (RuntimeException | Error e) {
            // Runs on a driver thread that would swallow it: make an engine bug visible at least.
            LOG.error("completing device op '{}' failed; ops depending on it may never run", op.name(), e);
            throw e;
        }
    }

    private static void setCurrent(EngineThread et, OprBlock op) {
        if (et != null) {
            et.currentOp = op;
        } else if (op == null) {
            CURRENT.remove();
        } else {
            CURRENT.set(op);
        }
    }

    private static void fnThrew(OprBlock op, Throwable e) {
        if (op.isCompleted()) {
            LOG.warn("op '{}' threw after it had completed; the exception is ignored", op.name(), e);
            return;
        }
        try {
            op.fail(e);
        } catch (IllegalStateException raced) {
            // Its callback completed it on another thread while the function was throwing.
            LOG.warn("op '{}' threw after it had completed; the exception is ignored", op.name(), e);
        }
    }

    @Override
    public final void completed(OprBlock op, Throwable error) {
        boolean launchedEarly = op.isLaunched();
        if (error != null) {
            Failure f = new Failure(error, op.name());
            op.setFailure(f);
            synchronized (failures) {
                failures.add(f);
            }
            if (launchedEarly) {
                // Its variables were released at launch: later users of its outputs must still see this.
                for (Var w : op.def().writes()) {
                    w.attachLateFailure(f);
                }
            }
            LOG.debug("op '{}' failed", op.name(), error);
        }
        OpListener l = op.listener();
        if (l != null) {
            l.finished(op, System.nanoTime());
        }
        if (op.inFlight) {
            diag.landed(op);
        }
        if (launchedEarly) {
            op.markDeviceDone();
        } else {
            op.releaseVariables();
        }
        ((PendingOps.Epoch) op.accounting).exit();
        op.markFinished();
    }

    // ---- waits ------------------------------------------------------------------------------------

    @Override
    public final void waitForVar(VarHandle var) {
        awaitVar(var, Long.MAX_VALUE, null);
    }

    @Override
    public final void waitForVar(VarHandle var, Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        awaitVar(var, deadline(timeout), timeout);
    }

    @Override
    public final void waitForAll() {
        awaitAll(Long.MAX_VALUE, null);
    }

    @Override
    public final void waitForAll(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        awaitAll(deadline(timeout), timeout);
    }

    private static long deadline(Duration timeout) {
        long now = System.nanoTime();
        long d;
        try {
            d = Math.addExact(now, timeout.toNanos());
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE - 1;
        }
        return d == Long.MAX_VALUE ? d - 1 : d;
    }

    private void awaitVar(VarHandle handle, long deadline, Duration timeout) {
        Var v = ownVar(handle, "var");
        requireLive(v, "waitForVar");
        checkNotInOp("waitForVar(" + v.name() + ")");
        if (v.hasPendingWrite()) {
            OpDef def = new OpDef(this, NOTHING, new Var[] {v}, NO_VARS, FnProperty.NO_SKIP,
                    "waitForVar(" + v.name() + ")", OpDef.Kind.WAIT);
            OprBlock waitOp = submit(def, Context.cpu(), 0, false);
            boolean done;
            try {
                done = awaitWatched("waitForVar(" + v + ")", waitOp::awaitFinished, deadline);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new EngineException("interrupted while waiting for " + v + " in waitForVar", e);
            }
            if (!done) {
                OprBlock writer = v.pendingWriter();
                throw new WaitTimeoutException("waitForVar(" + v.name() + ") timed out after " + timeout
                        + (writer == null ? "" : ": still waiting for op '" + writer.name() + "' that writes it")
                        + "; " + diagnostics().report(20));
            }
        }
        EngineException failure = reportedFailure(v);
        if (failure != null) {
            throw failure;
        }
    }

    private void awaitAll(long deadline, Duration timeout) {
        checkNotInOp("waitForAll()");
        PendingOps.Epoch sealed = pending.seal();
        boolean done;
        try {
            done = awaitWatched("waitForAll()", d -> PendingOps.await(sealed, d), deadline);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EngineException("interrupted while waiting in waitForAll", e);
        }
        if (!done) {
            throw new WaitTimeoutException("waitForAll() timed out after " + timeout + "; " + diagnostics().report(20));
        }
        EngineException first = firstUnreportedFailure();
        if (first != null) {
            throw first;
        }
    }

    /** Takes every unreported failure, in completion order. */
    private Failure[] takeFailures() {
        synchronized (failures) {
            Failure[] all = failures.toArray(new Failure[0]);
            failures.clear();
            return all;
        }
    }

    @Override
    public final CompletableFuture<Void> whenReady(VarHandle handle) {
        Var v = ownVar(handle, "var");
        requireLive(v, "whenReady");
        CompletableFuture<Void> future = new CompletableFuture<>();
        // The same wake-up op as waitForVar's: it runs once the writers pushed before now completed,
        // inline on the thread that completed the last one; the failure check is waitForVar's too.
        SyncFn check = ctx -> completeOffEngine(future, reportedFailure(v));
        OpDef def = new OpDef(this, check, new Var[] {v}, NO_VARS, FnProperty.NO_SKIP,
                "whenReady(" + v.name() + ")", OpDef.Kind.WAIT);
        submit(def, Context.cpu(), 0, false);
        return future;
    }

    @Override
    public final CompletableFuture<Void> whenAllDone() {
        CompletableFuture<Void> future = new CompletableFuture<>();
        PendingOps.Epoch sealed = pending.seal();
        PendingOps.whenFinished(sealed, () -> completeOffEngine(future, firstUnreportedFailure()));
        return future;
    }

    /**
     * The failure {@code v} carries, marked reported and dropped from every place that holds it, as the
     * exception a wait throws; null if there is none or it was already reported.
     */
    private EngineException reportedFailure(Var v) {
        Failure f = v.activeFailure();
        if (f == null || !f.markReported()) {
            return null;
        }
        synchronized (failures) {
            failures.remove(f); // reported: nothing may keep it any more (variables drop it when they see it)
        }
        v.dropReportedFailure(f);
        return failureException(f);
    }

    /** As the waits report them: the first unreported failure, later ones suppressed; null if none. */
    private EngineException firstUnreportedFailure() {
        EngineException first = null;
        for (Failure f : takeFailures()) {
            if (f.markReported()) {
                if (first == null) {
                    first = failureException(f);
                } else {
                    first.addSuppressed(f.error());
                }
            }
        }
        return first;
    }

    /**
     * Completes {@code future} on the common pool, never on the calling (often an engine) thread: a
     * dependent stage would otherwise run inline, holding a worker or blocking inside an op.
     */
    private static void completeOffEngine(CompletableFuture<Void> future, EngineException failure) {
        ForkJoinPool.commonPool().execute(() -> {
            if (failure == null) {
                future.complete(null);
            } else {
                future.completeExceptionally(failure);
            }
        });
    }

    /** A blocking wait until a deadline; true when what it waits for happened. */
    private interface Await {
        boolean until(long deadlineNanos) throws InterruptedException;
    }

    /**
     * Runs a wait, registered for diagnostics; if the hang doctor is on and the wait outlasts its
     * threshold, logs what is pending once and goes on waiting.
     */
    private boolean awaitWatched(String call, Await wait, long deadline) throws InterruptedException {
        diag.waitStarted(call);
        try {
            if (hangDoctorMs > 0) {
                long doctorAt = System.nanoTime() + hangDoctorMs * 1_000_000L;
                if (deadline == Long.MAX_VALUE || doctorAt - deadline < 0) {
                    if (wait.until(doctorAt)) {
                        return true;
                    }
                    LOG.warn("{} has been waiting for {} ms. What is pending:\n{}\n(The wait goes on. -D{}=<ms> sets this "
                            + "threshold, 0 turns the report off.)", call, hangDoctorMs, diagnostics().report(),
                            HANG_DOCTOR_PROPERTY);
                    hangReports.increment();
                }
            }
            return wait.until(deadline);
        } finally {
            diag.waitEnded();
        }
    }

    @Override
    public final EngineDiagnostics diagnostics() {
        return diag.snapshot(this::pendingOps, Diagnostics.counters(this));
    }

    private static EngineException failureException(Failure f) {
        return new EngineException("op '" + f.opName() + "' failed: " + f.error(), f.error());
    }

    private void checkNotInOp(String what) {
        Thread t = Thread.currentThread();
        OprBlock cur = t instanceof EngineThread ? ((EngineThread) t).currentOp : CURRENT.get();
        if (cur != null && cur.def().owner() == this) {
            throw new IllegalStateException(what + " was called from inside op '" + cur.name() + "' of engine '" + name
                    + "': the op would wait for itself or for the worker it occupies. Push a dependent op instead "
                    + "(list the variable in its constVars), or wait outside ops");
        }
        if (t instanceof EngineThread && ((EngineThread) t).engine() == this) {
            throw new IllegalStateException(what + " was called on worker thread " + t.getName() + " of engine '" + name
                    + "': a worker that blocks can deadlock the engine. Push a dependent op instead");
        }
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
            ListenerFanout.Entry[] now = listener == null ? new ListenerFanout.Entry[0] : ((ListenerFanout) listener).entries;
            ListenerFanout.Entry[] next = Arrays.copyOf(now, now.length + 1);
            next[now.length] = new ListenerFanout.Entry(l);
            listener = new ListenerFanout(next, this::removeListener);
        }
    }

    @Override
    public final void removeListener(OpListener l) {
        synchronized (lifecycle) {
            if (listener == null) {
                return;
            }
            ListenerFanout.Entry[] now = ((ListenerFanout) listener).entries;
            ListenerFanout.Entry[] next = Arrays.stream(now).filter(x -> x.listener != l).toArray(ListenerFanout.Entry[]::new);
            if (next.length != now.length) {
                listener = next.length == 0 ? null : new ListenerFanout(next, this::removeListener);
            }
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
        checkNotInOp("close()");
        boolean first;
        synchronized (lifecycle) {
            first = !closing;
            closing = true; // from here on pushes are refused; the drain below runs without the lock
        }
        boolean interrupted = false;
        if (!first) {
            // Another thread is closing: return when it has finished, as a close is expected to.
            while (true) {
                try {
                    closedSignal.await();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            return;
        }
        try {
            PendingOps.Epoch sealed = pending.seal();
            while (true) {
                try {
                    PendingOps.await(sealed, Long.MAX_VALUE);
                    break;
                } catch (InterruptedException e) {
                    interrupted = true; // finish closing; restore the status below
                }
            }
            for (Failure f : takeFailures()) {
                if (f.markReported()) {
                    LOG.warn("engine '{}' closed with an unreported failure: {}", name, f, f.error());
                }
            }
            stopWorkers();
            for (DeviceSlot s : devices.values()) {
                try {
                    s.close();
                } catch (RuntimeException e) {
                    LOG.warn("closing the streams of {} failed", s.context(), e);
                }
                Devices.release(s.context());
            }
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
