package org.depengine.core.dispatch;

import java.util.Map;
import org.depengine.api.Context;
import org.depengine.api.device.Stream;
import org.depengine.api.listen.OpInfo;
import org.depengine.api.listen.OpListener;
import org.depengine.core.DispatchPolicy;
import org.depengine.core.bulk.Bulks;
import org.depengine.core.device.DeviceOrdering;
import org.depengine.core.device.EngineDevice;
import org.depengine.core.device.EngineDevices;
import org.depengine.core.exec.CurrentOp;
import org.depengine.core.exec.EngineCounters;
import org.depengine.core.replay.ReplayHost;
import org.depengine.core.tracker.Failure;
import org.depengine.core.tracker.OpBlock;
import org.depengine.core.tracker.OpDef;
import org.depengine.core.tracker.OpDevice;
import org.depengine.core.tracker.OpHost;
import org.depengine.core.tracker.Registration;
import org.depengine.core.wait.Diagnostics;
import org.depengine.core.wait.FailureLedger;
import org.depengine.core.wait.PendingOps;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An engine's way from push to run, the same for every engine: a push counts its op (the count's one
 * atomic add also numbers it: {@link PendingOps}), makes its block,
 * lets the dispatch policy route it, registers it on its variables and drops its guard; whoever takes
 * its latch to zero dispatches it (deferring it behind fences first, see {@link DeviceOrdering}), the
 * policy decides where it runs, and {@link OpExecution} runs it. Completion is the op's own
 * ({@link OpBlock}); the dispatcher's hook ({@link #completed}) only records and reports.
 *
 * <p>It is also what the other parts see of the engine, each through a narrow interface: the tracker
 * ({@link OpHost}), a graph's replay ({@link ReplayHost}), bulks ({@code EngineBulkHost}) and waits (an
 * internal op's {@link #submit}). Thread-safe.
 */
public final class Dispatcher implements OpHost, ReplayHost {
    private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);

    private final Object owner;
    private final String name;
    private final PendingOps pending = new PendingOps();
    private final Registration registration = new Registration();
    private final EngineDevices devices = new EngineDevices();
    private final FailureLedger failures = new FailureLedger();
    private final Diagnostics diag;
    private final DeviceOrdering ordering;
    private final Bulks bulks;
    private final EngineCounters metrics;
    private OpExecution execution; // set with the policy, before any push
    private DispatchPolicy policy; // likewise
    private volatile ListenerFanout listener; // null when nobody listens: the one volatile read per push
    private volatile boolean closing;
    private volatile boolean shutdownNotified;

    /**
     * @param owner the engine (the owner of its variables, definitions and threads)
     * @param name the engine's name, for messages
     * @param timingInterval one op in this many is timed in the engine's metrics (0: none)
     */
    @SuppressWarnings("this-escape") // the parts made here call back only once ops are pushed
    public Dispatcher(Object owner, String name, int timingInterval) {
        this.owner = owner;
        this.name = name;
        this.diag = new Diagnostics(owner, name);
        this.ordering = new DeviceOrdering(diag);
        this.bulks = new Bulks(owner, new EngineBulkHost(this, failures));
        this.metrics = new EngineCounters(name, timingInterval, pending::idsHandedOut, pending::pending, diag::waiting);
    }

    /** Sets the engine's dispatch policy, once, before any push. */
    public void usePolicy(DispatchPolicy p) {
        if (policy != null) {
            throw new IllegalStateException("the dispatch policy of engine '" + name + "' is set already");
        }
        policy = p;
        execution = new OpExecution(ordering, diag, this::shutdownNotified, p.releasesAtLaunch());
    }

    // ---- what the engine's facade uses --------------------------------------------------------------

    /** The engine's bulks. */
    public Bulks bulks() {
        return bulks;
    }

    /** The engine's failures not yet reported. */
    public FailureLedger failures() {
        return failures;
    }

    /** The engine's diagnostics registry. */
    public Diagnostics diag() {
        return diag;
    }

    /** The engine's metrics (its op counts, and the registry of its worker groups). */
    public EngineCounters metrics() {
        return metrics;
    }

    /** The engine's pending-op count. */
    public PendingOps pending() {
        return pending;
    }

    /** The engine device of a context, opened on first use (throws for a context no device serves). */
    public EngineDevice device(Context ctx) {
        return devices.get(ctx);
    }

    /** The listener fan-out now, or null. */
    public ListenerFanout listeners() {
        return listener;
    }

    /** Replaces the listener fan-out (the engine's lifecycle lock is held). */
    public void setListeners(ListenerFanout l) {
        listener = l;
    }

    /** From now on pushes are refused (close). */
    public void markClosing() {
        closing = true;
    }

    @Override
    public boolean isClosed() {
        return closing;
    }

    /** {@code notifyShutdown}: from now on only DELETE_VAR ops run. */
    public void notifyShutdown() {
        shutdownNotified = true;
    }

    private boolean shutdownNotified() {
        return shutdownNotified;
    }

    /** After the last op: stops the policy's threads and closes the devices. */
    public void stop() {
        policy.stop();
        devices.close();
    }

    /** The counters of {@code diagnostics()}: the core's, then the policy's. */
    public Map<String, Long> counters(Map<String, Long> core) {
        core.putAll(ordering.counters());
        policy.addCounters(core);
        return core;
    }

    // ---- pushes ------------------------------------------------------------------------------------

    /**
     * Pushes a validated op: counts it, routes it, registers it, dispatches it if ready, then the
     * policy's after-push step. {@code registered} (may be null) runs right after the op is registered
     * on its variables (a bulk's flush). An internal wait is pushed even while closing, has no listener
     * and is awaited by its pusher.
     *
     * @throws IllegalStateException if the engine is closed (nothing pushed), or a variable was deleted
     *     concurrently (the op is skipped)
     */
    public OpBlock submit(OpDef def, Context ctx, int priority, boolean profiling, Runnable registered) {
        boolean wait = def.kind() == OpDef.Kind.WAIT;
        EngineDevice device = wait ? null : devices.get(ctx);
        PendingOps.Epoch epoch;
        long id;
        while ((id = (epoch = pending.current()).tryEnter(1)) < 0) {
            Thread.onSpinWait(); // a seal is replacing the epoch right now
        }
        ListenerFanout l = wait ? null : listener; // waits are not ops of the user's
        OpBlock op;
        try {
            if (closing && !wait) {
                throw new IllegalStateException("engine '" + name + "' is closed; op '" + label(def)
                        + "' was not pushed. Push before close(), or create a new engine");
            }
            op = new OpBlock(def, this, ctx, priority, profiling, id, l, epoch, device == null ? null : device.forOps());
            if (wait) {
                op.expectWaiter(); // its caller waits for it
            }
            policy.route(op, device);
        } catch (Throwable t) {
            // A push registers its op fully or leaves no trace: nothing is registered yet, so leaving
            // the epoch undoes it (a phantom pending op would hang every later waitForAll and close).
            epoch.exit();
            metrics.notPushed(1); // its id was taken
            throw t;
        }
        if (wait) {
            metrics.notPushed(1); // a wait marker took an id
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
        policy.pushed(op);
        if (cancelled != null) {
            throw cancelled;
        }
        return op;
    }

    static String label(OpDef def) {
        return def.givenName() == null ? "<unnamed>" : def.givenName();
    }

    // ---- running -----------------------------------------------------------------------------------

    @Override
    public void ready(OpBlock op) {
        dispatch(op, false);
    }

    private void dispatch(OpBlock op, boolean onPusher) {
        if (op.hasFences() && ordering.deferredBehindFences(op)) {
            return; // dispatched again, from the last fence's completion, when its device work is done
        }
        OpListener l = op.listener();
        if (l != null) {
            l.ready(op, System.nanoTime());
        }
        if (op.def().kind() == OpDef.Kind.WAIT) {
            run(op, null, null); // it only wakes a waiting thread: no worker needed
            return;
        }
        policy.dispatch(op, onPusher);
    }

    /**
     * Runs a ready op on the calling thread ({@link OpExecution#run}). Never throws.
     *
     * @param currentOp the calling thread's current-op holder ({@link CurrentOp#otherThreadHolder()})
     *     if the caller has it at hand, else null (it is looked up)
     */
    public void run(OpBlock op, Stream ownStream, OpBlock[] currentOp) {
        execution.run(op, ownStream, currentOp);
    }

    /** Fails (or skips) a ready op that cannot run for want of a stream ({@link OpExecution#refuse}). Never throws. */
    public void refuse(OpBlock op, Throwable cause) {
        try {
            execution.refuse(op, cause);
        } finally {
            op.endRun();
        }
    }

    @Override
    public Registration registration() {
        return registration;
    }

    /** The engine's hooks on an op's completion; the op then releases its variables and finishes itself. */
    @Override
    public void completed(OpBlock op, Failure own) {
        if (own != null) {
            failed(own);
        }
        OpListener l = op.listener();
        if (l != null) {
            l.finished(op, System.nanoTime());
        }
        if (op.isInFlight()) {
            diag.landed(op); // it was flagged before it completed: see OpBlock.markInFlight
        }
        if (own == null && op.outcome() == OpInfo.Outcome.SKIPPED && op.def().kind() != OpDef.Kind.WAIT) {
            metrics.skipped();
        }
    }

    /** An op's own failure: counted, kept for {@code waitForAll}, logged. */
    private void failed(Failure own) {
        metrics.failed();
        failures.record(own);
        LOG.debug("op '{}' failed", own.opName(), own.error());
    }

    // ---- what a replay needs (ReplayHost) ------------------------------------------------------------

    @Override
    public boolean runsOnPusher() {
        return policy.runsOnPusher();
    }

    @Override
    public Failure opFailed(Throwable error, String opName) {
        Failure f = new Failure(error, opName);
        failed(f);
        return f;
    }

    @Override
    public void opSkipped() {
        metrics.skipped();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void flushBulks() {
        bulks.flushAll();
    }

    @Override
    public OpBlock currentOp() {
        return CurrentOp.get();
    }

    @Override
    public Entry enter(int n) {
        PendingOps.Epoch epoch;
        long first;
        while ((first = (epoch = pending.current()).tryEnter(n)) < 0) {
            Thread.onSpinWait(); // a seal is replacing the epoch right now
        }
        return new Entry(epoch, first);
    }

    @Override
    public void notPushed(int n) {
        metrics.notPushed(n);
    }

    @Override
    public void replayed(int n) {
        metrics.replayed(n);
    }

    @Override
    public OpListener listener() {
        return listener;
    }

    @Override
    public void reportPushed(OpBlock op, OpListener l) {
        if (((ListenerFanout) l).wantsPushed) {
            l.pushed(op, System.nanoTime()); // the fan-out contains whatever a listener throws
        }
    }

    @Override
    public OpDevice opDevice(Context ctx) {
        return devices.get(ctx).forOps();
    }

    @Override
    public OpHost opHost() {
        return this;
    }

    @Override
    public void route(OpBlock op) {
        policy.route(op, devices.get(op.context()));
    }

    @Override
    public void launch(OpBlock op, boolean guarded) {
        if (guarded && op.dropGuard()) {
            dispatch(op, true);
        }
        policy.pushed(op);
    }

    /** The engine's variables, definitions and threads belong to this owner. */
    public Object owner() {
        return owner;
    }
}
