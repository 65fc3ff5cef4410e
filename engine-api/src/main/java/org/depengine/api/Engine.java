package org.depengine.api;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.depengine.api.internal.EngineRegistry;
import org.depengine.api.listen.OpListener;
import org.depengine.api.spi.EngineConfig;

/**
 * A dependency engine: it runs pushed closures ("ops") after the ops they depend on, in parallel
 * where they do not conflict, on the device each was pushed to.
 *
 * <h2>The contract</h2>
 * <ul>
 *   <li><b>Conflicts and order.</b> Each op lists the variables it reads ({@code constVars}) and the
 *   variables it writes ({@code mutableVars}). Two ops conflict when one writes a variable the other
 *   reads or writes. Conflicting ops run in push order; ops that read the same version of a variable
 *   may run at the same time. The result equals a serial run of all ops in push order.</li>
 *   <li><b>Thread-safety.</b> Every method may be called from any thread. Pushes from several threads
 *   never deadlock and never form a cycle: each push is ordered, as a whole, against every other push
 *   of a shared variable, and each thread's own pushes keep their order on every variable they share.</li>
 *   <li><b>Arguments.</b> A null argument is a {@link NullPointerException} naming it. A variable listed
 *   twice in one list counts once. A variable in both lists is an {@link IllegalArgumentException}
 *   naming it. A deleted variable or operator is an {@link IllegalStateException} naming it. Empty
 *   lists are fine. A context whose device type no provider offers is an
 *   {@link IllegalArgumentException} naming the type and listing the types found; a device that is
 *   present but unavailable (no driver) is an {@link IllegalStateException} giving the reason. A push
 *   that throws has registered nothing.</li>
 *   <li><b>Waits.</b> {@link #waitForVar} returns once every op pushed before the call that writes the
 *   variable has completed; {@link #waitForAll} once every op pushed before the call has completed.
 *   Memory consistency effects: actions in an op happen-before the return of a wait that covers it,
 *   and actions in a thread before a push happen-before the op runs.</li>
 *   <li><b>Failures.</b> An op fails when its function throws (any {@link Throwable}, {@link Error}s
 *   included) or calls {@link CallbackOnComplete#fail}. The variables it writes then carry the failure.
 *   An op that reads or writes a variable carrying a failure is skipped (its function does not run)
 *   and passes the failure on to the variables it writes, unless its property is
 *   {@link FnProperty#NO_SKIP}. {@link #waitForVar} throws {@link EngineException} (cause: the original
 *   throwable, the same instance; the message names the failed op) when the variable carries a
 *   failure; {@link #waitForAll} throws for the first failure since the last {@code waitForAll}. A
 *   failure is reported once: when rethrown it is cleared on every variable it was attached to.</li>
 *   <li><b>Write counts.</b> {@link VarHandle#version()} counts every completed write exactly once,
 *   failed and skipped ones included, through bulks and replays too: a contract others may build on
 *   (its Javadoc lists the cases).</li>
 *   <li><b>Without blocking.</b> {@link #whenReady} and {@link #whenAllDone} are the waits as
 *   {@link CompletableFuture}s: they cover the same ops, fail with the same {@link EngineException}, and
 *   report each failure once with the waits. They never block, so they are the way to chain host work
 *   onto engine results, from inside an op too.</li>
 *   <li><b>Waiting inside an op.</b> A wait called from inside an op of this engine would wait for
 *   itself or for the worker it occupies; it throws {@link IllegalStateException} instead of
 *   deadlocking. So does {@link #close()} from inside an op.</li>
 *   <li><b>Shutdown.</b> {@link #close()} refuses new pushes with {@link IllegalStateException}, waits
 *   for everything already pushed, and stops the engine's threads; it is idempotent. After
 *   {@link #notifyShutdown()} every op except {@link FnProperty#DELETE_VAR} is skipped.</li>
 * </ul>
 *
 * <p>Engines are found with {@link java.util.ServiceLoader} through
 * {@link org.depengine.api.spi.EngineProvider}: {@code naive} (each op on the pushing thread),
 * {@code pooled} (shared worker queues) and {@code perdevice} (worker blocks per device, the default).
 */
public interface Engine extends AutoCloseable {

    /** The system property that names the engine {@link #get()} returns. */
    String ENGINE_PROPERTY = "depengine.engine";

    /** The engine {@link #get()} uses when {@value #ENGINE_PROPERTY} is not set. */
    String DEFAULT_ENGINE = "perdevice";

    /**
     * The process-wide engine, named by the system property {@value #ENGINE_PROPERTY}
     * ({@code naive}, {@code pooled} or {@code perdevice}; default {@value #DEFAULT_ENGINE}), created on
     * first use. The same instance is returned until it is closed; the next call after that creates a
     * new one. A JVM shutdown hook finishes its pending work at exit, waiting at most
     * {@code -Ddepengine.exitTimeoutMs} (default 30000) before logging what is still pending and letting
     * the JVM exit.
     *
     * @return the process-wide engine
     * @throws IllegalStateException if no engine of that name is found (the message lists those found)
     * @throws IllegalArgumentException naming the property if {@code depengine.exitTimeoutMs} is not a
     *     whole number of milliseconds &ge; 0, or an engine creation hook refused an invalid setting
     *     (see {@link org.depengine.api.spi.EngineCreationHook})
     */
    static Engine get() {
        return EngineRegistry.global();
    }

    /**
     * Creates a new, independent engine of the given name, configured from the system properties
     * read now.
     *
     * @param name the engine name: {@code naive}, {@code pooled}, {@code perdevice} or another provider's
     * @return the new engine
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalStateException if no engine of that name is found, or two providers claim it
     * @throws IllegalArgumentException if a {@code depengine.*} property has an invalid value
     */
    static Engine create(String name) {
        return create(name, EngineConfig.fromSystemProperties());
    }

    /**
     * Creates a new, independent engine of the given name with an explicit configuration.
     *
     * @param name the engine name: {@code naive}, {@code pooled}, {@code perdevice} or another provider's
     * @param config the settings to read now
     * @return the new engine
     * @throws NullPointerException if an argument is null
     * @throws IllegalStateException if no engine of that name is found, or two providers claim it
     * @throws IllegalArgumentException if a configuration value is invalid
     */
    static Engine create(String name, EngineConfig config) {
        return EngineRegistry.create(name, config);
    }

    /**
     * This engine's name, e.g. {@code "perdevice"}.
     *
     * @return this engine's name, e.g. {@code "perdevice"}
     */
    String name();

    /**
     * A new variable with a generated name.
     *
     * @return the new variable
     */
    VarHandle newVariable();

    /**
     * A new variable.
     *
     * @param name used in error messages, traces and diagnostics
     * @return the new variable
     * @throws NullPointerException if {@code name} is null
     */
    VarHandle newVariable(String name);

    /**
     * A reusable operator: the lists are validated and de-duplicated once, here.
     *
     * @param fn the op's function
     * @param constVars the variables the op reads
     * @param mutableVars the variables the op writes
     * @param prop the op's property
     * @param name used in error messages and traces; null for a generated name
     * @return the operator, to push with {@link #push(OprHandle, Context, int, boolean)}
     * @throws NullPointerException if {@code fn}, a list, an element or {@code prop} is null
     * @throws IllegalArgumentException if a variable is in both lists or belongs to another engine
     * @throws IllegalStateException if a variable was deleted
     */
    OprHandle newOperator(AsyncFn fn, List<VarHandle> constVars, List<VarHandle> mutableVars, FnProperty prop, String name);

    /**
     * Deletes an operator: it can no longer be pushed (from now on), and its resources are released
     * after every op pushed before this call that uses its variables.
     *
     * @param op the operator from {@link #newOperator}
     * @throws IllegalStateException if it was already deleted
     */
    void deleteOperator(OprHandle op);

    /**
     * Pushes one run of an operator.
     *
     * @param op the operator from {@link #newOperator}
     * @param ctx the device context
     * @param priority higher runs first among ready ops of a priority pool; ignored elsewhere
     * @param profiling whether a profiler in "flagged ops only" mode records this run
     * @throws IllegalStateException if the operator or one of its variables was deleted, or the engine is closed
     */
    void push(OprHandle op, Context ctx, int priority, boolean profiling);

    /**
     * Pushes an asynchronous op: it completes when it calls {@code onComplete}.
     *
     * @param fn the op's function
     * @param ctx the device context
     * @param constVars the variables the op reads
     * @param mutableVars the variables the op writes
     * @param prop the op's property
     * @param priority the op's priority: higher runs first among ready ops
     * @param name used in error messages and traces; null for a generated name
     * @throws NullPointerException if an argument other than {@code name} is null
     * @throws IllegalArgumentException if a variable is in both lists, or belongs to another engine,
     *     or the context's device type is unknown
     * @throws IllegalStateException if a variable was deleted, the device is unavailable, or the engine is closed
     */
    void pushAsync(AsyncFn fn, Context ctx, List<VarHandle> constVars, List<VarHandle> mutableVars,
                   FnProperty prop, int priority, String name);

    /**
     * Pushes a synchronous op: it completes when {@code fn} returns. Throws as {@link #pushAsync}.
     *
     * @param fn the op's function
     * @param ctx the device context
     * @param constVars the variables the op reads
     * @param mutableVars the variables the op writes
     * @param prop the op's property
     * @param priority the op's priority: higher runs first among ready ops
     * @param name used in error messages and traces; null for a generated name
     */
    void pushSync(SyncFn fn, Context ctx, List<VarHandle> constVars, List<VarHandle> mutableVars,
                  FnProperty prop, int priority, String name);

    /**
     * As {@link #pushAsync(AsyncFn, Context, List, List, FnProperty, int, String)}, with arguments that
     * describe this run of the op (see {@link OpBuilder#arg(String, long)}): listeners see them as
     * {@link org.depengine.api.listen.OpInfo#args()}, in the map's iteration order. They do not change
     * how the op runs. The default drops them (an engine that reports no arguments); this project's
     * engines report them.
     *
     * @param fn the op's function
     * @param ctx the device context
     * @param constVars the variables the op reads
     * @param mutableVars the variables the op writes
     * @param prop the op's property
     * @param priority the op's priority: higher runs first among ready ops
     * @param name used in error messages and traces; null for a generated name
     * @param args argument name to value: non-null keys, each value a {@link Long}, {@link Double},
     *     {@link Boolean} or {@link String}; copied
     * @throws NullPointerException if {@code args}, a key or a value is null, or as {@code pushAsync}
     * @throws IllegalArgumentException if a value is of another type, or as {@code pushAsync}
     * @throws IllegalStateException as {@code pushAsync}
     */
    default void pushAsync(AsyncFn fn, Context ctx, List<VarHandle> constVars, List<VarHandle> mutableVars,
                           FnProperty prop, int priority, String name, Map<String, ?> args) {
        Objects.requireNonNull(args, "args");
        pushAsync(fn, ctx, constVars, mutableVars, prop, priority, name);
    }

    /**
     * As {@link #pushSync(SyncFn, Context, List, List, FnProperty, int, String)}, with arguments; see
     * {@link #pushAsync(AsyncFn, Context, List, List, FnProperty, int, String, Map)}. The default drops them.
     *
     * @param fn the op's function
     * @param ctx the device context
     * @param constVars the variables the op reads
     * @param mutableVars the variables the op writes
     * @param prop the op's property
     * @param priority the op's priority: higher runs first among ready ops
     * @param name used in error messages and traces; null for a generated name
     * @param args argument name to value, as for {@code pushAsync}
     * @throws NullPointerException if {@code args}, a key or a value is null, or as {@code pushSync}
     * @throws IllegalArgumentException if a value is of another type, or as {@code pushSync}
     * @throws IllegalStateException as {@code pushSync}
     */
    default void pushSync(SyncFn fn, Context ctx, List<VarHandle> constVars, List<VarHandle> mutableVars,
                          FnProperty prop, int priority, String name, Map<String, ?> args) {
        Objects.requireNonNull(args, "args");
        pushSync(fn, ctx, constVars, mutableVars, prop, priority, name);
    }

    /**
     * Pushes a synchronous {@link FnProperty#NORMAL} op with priority 0 and a generated name.
     * Throws as {@link #pushAsync}.
     *
     * @param fn the op's function
     * @param ctx the device context
     * @param constVars the variables the op reads
     * @param mutableVars the variables the op writes
     */
    default void pushSync(SyncFn fn, Context ctx, List<VarHandle> constVars, List<VarHandle> mutableVars) {
        pushSync(fn, ctx, constVars, mutableVars, FnProperty.NORMAL, 0, null);
    }

    /**
     * Deletes a variable: {@code deleteFn} runs after every op pushed before this call that uses the
     * variable (it writes the variable, with {@link FnProperty#DELETE_VAR}); from this call on, the
     * variable can no longer be used.
     *
     * @param deleteFn the function to run before the variable is deleted (e.g. to free its memory)
     * @param ctx the device context
     * @param var the variable
     * @throws IllegalStateException if the variable was already deleted
     */
    void deleteVariable(SyncFn deleteFn, Context ctx, VarHandle var);

    /**
     * Waits until every op pushed before this call that writes {@code var} has completed. Running
     * reads do not delay it.
     *
     * @param var the variable
     * @throws EngineException if the variable carries a failure (then cleared), or the wait was
     *     interrupted (the interrupt status is set again)
     * @throws IllegalStateException if the variable was deleted, or the call is made from inside an op of this engine
     */
    void waitForVar(VarHandle var);

    /**
     * As {@link #waitForVar(VarHandle)}, giving up after {@code timeout}.
     *
     * @param var the variable
     * @param timeout how long to wait at most
     * @throws WaitTimeoutException if the ops were not done in time; the message lists what is pending
     */
    void waitForVar(VarHandle var, Duration timeout);

    /**
     * Waits until every op pushed before this call has completed, then rethrows the first failure
     * since the last {@code waitForAll} (clearing them all).
     *
     * @throws EngineException for the first unreported failure, or an interrupted wait
     * @throws IllegalStateException if called from inside an op of this engine
     */
    void waitForAll();

    /**
     * As {@link #waitForAll()}, giving up after {@code timeout}.
     *
     * @param timeout how long to wait at most
     * @throws WaitTimeoutException if the ops were not done in time; the message lists what is pending
     */
    void waitForAll(Duration timeout);

    /**
     * A future that completes when every op pushed before this call that writes {@code var} has
     * completed: the ops {@link #waitForVar(VarHandle)} would wait for. If the variable then carries a
     * failure, the future completes exceptionally with the {@link EngineException} that
     * {@code waitForVar} would throw, and the failure is cleared (reported once, to whichever wait or
     * future reaches it first).
     *
     * <p>It never blocks and never holds an engine thread: it may be called from inside an op, where
     * {@code waitForVar} is refused. The future is always completed from a thread that is not the
     * engine's ({@link java.util.concurrent.ForkJoinPool#commonPool()}), so dependent stages added with
     * {@code thenApply}, {@code thenRun} and so on before completion never run on an engine worker
     * (a stage added after completion runs on the thread adding it, as {@link CompletableFuture}
     * always does). Completing or cancelling the future from outside does not affect the engine.
     *
     * @param var the variable
     * @return the future
     * @throws NullPointerException if {@code var} is null
     * @throws IllegalArgumentException if {@code var} belongs to another engine
     * @throws IllegalStateException if {@code var} was deleted
     * @throws UnsupportedOperationException if the engine implementation does not offer it (every
     *     engine of this project does)
     */
    default CompletableFuture<Void> whenReady(VarHandle var) {
        throw new UnsupportedOperationException("engine '" + name() + "' offers no whenReady");
    }

    /**
     * A future that completes when every op pushed before this call has completed: the ops
     * {@link #waitForAll()} would wait for. It then completes exceptionally with the
     * {@link EngineException} {@code waitForAll} would throw for the first failure not yet reported
     * (later ones added as suppressed), clearing them all, or normally if there is none.
     *
     * <p>Never blocks, may be called from inside an op (that op is among those it covers), and is
     * completed from a thread that is not the engine's, as {@link #whenReady}.
     *
     * @return the future
     * @throws UnsupportedOperationException if the engine implementation does not offer it (every
     *     engine of this project does)
     */
    default CompletableFuture<Void> whenAllDone() {
        throw new UnsupportedOperationException("engine '" + name() + "' offers no whenAllDone");
    }

    /**
     * A builder for one named op, pushed with {@link OpBuilder#run} or {@link OpBuilder#runAsync}:
     * {@code engine.op("fc1 forward").reads(x, w).writes(h).on(ctx).priority(2).run(fn)}. It costs
     * the same per push as {@link #pushSync}; the name appears in errors, traces and diagnostics.
     *
     * @param name the op's name; null for a generated one
     * @return the builder
     */
    default OpBuilder op(String name) {
        return new OpBuilder(this, name);
    }

    /**
     * Opens a bulk on the calling thread: until it is closed, consecutive synchronous ops this thread
     * pushes ({@link #pushSync} or {@link OpBuilder#run}) to the same context, with the same property
     * ({@link FnProperty#NORMAL} or {@link FnProperty#NO_SKIP}) and the same priority, are merged into
     * one op of up to {@code size} members (MXNet's bulk execution): one registration and one dispatch
     * instead of {@code size}. Use it for runs of small ops: {@code try (Bulk b = engine.bulk(16)) { ... }}.
     *
     * <p><b>The contract is that of the ops pushed one by one.</b> Each member is validated when pushed
     * (bad arguments throw there, and nothing is kept). The merged op reads the union of the members'
     * reads and writes the union of their writes (a variable one member reads and another writes is a
     * write); its function runs the members in push order on one thread. Results and
     * {@link VarHandle#version()} counts equal those of the members pushed one by one; each member
     * follows the skip rule on its own (a member whose variables carry a failure is skipped, and passes
     * it on to its writes, unless it is {@link FnProperty#NO_SKIP}).
     *
     * <p><b>Failures.</b> A member that throws fails the variables it writes with its throwable (waits
     * name the member); every later member of the same merged op is skipped and its writes carry the
     * same failure, even when it does not use the failed variables. Members before it keep their
     * results. Listeners and profilers see one op, named {@code "bulk[n]: first..last"} after its first
     * and last members, and each member inside it through
     * {@link org.depengine.api.listen.OpListener#memberFinished} (name, outcome, times): a profiler draws
     * the members inside the merged op's bar.
     *
     * <p><b>What ends a merged op</b> (the held members are pushed as one op, in order): reaching
     * {@code size} members; a push by this thread that cannot be merged (an async op, an operator run,
     * a variable deletion, another context, property or priority); any wait ({@link #waitForVar},
     * {@link #waitForAll}, {@link #whenReady}, {@link #whenAllDone}) from any thread;
     * {@link Bulk#flush()} and {@link Bulk#close()}; {@link #close()} of the engine.
     *
     * <p><b>Other threads.</b> A bulk is the calling thread's alone; other threads' ops are never merged
     * into it. Ordering across threads stays that of the calls: a member counts as pushed when its
     * {@code pushSync} returns, so any push or wait by another thread after that is ordered after it
     * (that push first pushes every other thread's held members). Two threads pushing at once in open
     * bulks therefore end each other's merged ops often, and merge little.
     *
     * <p>After {@link #notifyShutdown()} a merged op not yet started is skipped as a whole and counts one
     * write per variable in {@link VarHandle#version()}.
     *
     * @param size the most members merged into one op, at least 1
     * @return the open bulk; close it on this thread
     * @throws IllegalArgumentException if {@code size} is less than 1
     * @throws IllegalStateException if this thread already has a bulk open on this engine (close it
     *     first; bulks do not nest), or the engine is closed
     * @throws UnsupportedOperationException if the engine implementation does not offer it (every
     *     engine of this project does)
     */
    default Bulk bulk(int size) {
        throw new UnsupportedOperationException("engine '" + name() + "' offers no bulk execution");
    }

    /**
     * Starts recording the calling thread's pushes to this engine: until the capture is closed (or its
     * {@link Capture#graph()} taken), each op this thread pushes here is validated as a push is (bad
     * arguments throw there, and nothing is kept) and recorded, but not run and not registered: nothing
     * waits for it, and no variable's {@link VarHandle#version()} moves. The recording becomes a
     * {@link Graph} whose {@link Graph#replay()} pushes the same ops again with one call, as many times
     * as wanted (CUDA stream capture and graph launch, for the engine's ops).
     *
     * <p><b>What is recorded:</b> every push of this thread to this engine ({@link #pushSync},
     * {@link #pushAsync}, {@link #push(OprHandle, Context, int, boolean)}, {@link OpBuilder}), with its
     * function (kept, and called again at each replay), context, variables, property, priority, name
     * and arguments. Other threads' pushes are not recorded and run as usual.
     *
     * <p><b>What is refused</b> while this thread records, each with an {@link IllegalStateException}
     * naming the capture, and without ending it: a wait ({@link #waitForVar}, {@link #waitForAll},
     * {@link #whenReady}, {@link #whenAllDone}), {@link #close()}, {@link #bulk(int)},
     * {@link #deleteVariable}, a second {@code capture()} on any engine (captures do not nest), and a push
     * to another engine (a graph replays on one engine). A wait would wait for ops that never run, and a
     * deletion would make every replay after the first fail.
     *
     * @return the open capture; end it on this thread ({@code try (Capture c = engine.capture()) {...}})
     * @throws IllegalStateException if the engine is closed, this thread already records a capture,
     *     it has a {@link #bulk(int)} open on this engine (close it first), or it is running an op (of
     *     any engine: capture outside ops)
     * @throws UnsupportedOperationException if the engine implementation does not offer it (every
     *     engine of this project does)
     */
    default Capture capture() {
        throw new UnsupportedOperationException("engine '" + name() + "' offers no capture and replay");
    }

    /**
     * Whether the calling thread is recording a {@link #capture()} of this engine: its pushes here are
     * recorded, not run. For libraries that push ops on a caller's behalf (a key-value store) and must
     * refuse calls that cannot be recorded, or decide at op time what they would decide at the call.
     * One volatile read while no capture is open anywhere.
     *
     * @return true if this thread's pushes to this engine are being recorded now
     */
    default boolean isCapturing() {
        return false;
    }

    /**
     * Tells the engine the process is shutting down: ops not yet started are skipped (completed without
     * running, without a failure), except ops with the property {@link FnProperty#DELETE_VAR}: variable
     * deletions and user ops pushed with that property still run.
     */
    void notifyShutdown();

    /**
     * Adds a listener told of every op's life from now on (see {@link OpListener} for its rules).
     * With no listener the engine pays one volatile read per push.
     *
     * @param listener the listener
     */
    void addListener(OpListener listener);

    /**
     * Removes a listener added with {@link #addListener}; unknown listeners are ignored.
     *
     * @param listener the listener
     */
    void removeListener(OpListener listener);

    /**
     * Whether {@link #close()} has been called.
     *
     * @return whether {@link #close()} has been called
     */
    boolean isClosed();

    /**
     * A snapshot of the ops pushed and not yet done, what each waits for and who holds it, the threads
     * blocked in waits, and the engine's counters. Safe to call from any thread at any time, including
     * from inside an op and after {@link #close()}; it never blocks on the engine's work.
     *
     * @return the snapshot
     * @throws UnsupportedOperationException if the engine implementation offers no diagnostics (every
     *     engine of this project does)
     */
    default EngineDiagnostics diagnostics() {
        throw new UnsupportedOperationException("engine '" + name() + "' offers no diagnostics");
    }

    /**
     * The engine's live counters for monitoring: ops pushed, failed, skipped and replayed, pending ops
     * and waiting threads, and per worker group its threads, active threads, queued and completed ops
     * and sampled queue-wait and run times. Safe to read from any thread at any time, also after
     * {@link #close()}; reading never blocks the engine's work.
     *
     * @return the view, the same one on every call
     * @throws UnsupportedOperationException if the engine implementation offers no metrics (every
     *     engine of this project does)
     */
    default EngineMetrics metrics() {
        throw new UnsupportedOperationException("engine '" + name() + "' offers no metrics");
    }

    /**
     * Refuses new pushes (they throw {@link IllegalStateException}), waits for every op already pushed,
     * then stops and joins the engine's threads, and tells each listener still attached
     * {@link OpListener#closed()}. Idempotent: a second call, from any thread, returns once the first has
     * finished. A failure of a pending op is logged, not thrown. While a close waits, the engine's other
     * methods do not block on it: listeners may be added and removed (a profiler stopped), diagnostics
     * taken. Ops that never complete (an async op whose callback is never called) keep close waiting; a
     * misbehaving device plugin does not (its ops fail, see {@link org.depengine.api.device.Device}).
     *
     * <p>Devices: the engine closes the streams it made and gives its devices back
     * ({@link org.depengine.api.device.Devices#release}); the last engine using a device type to close
     * thereby closes that type's devices, freeing their buffers, unless something else holds them (see
     * {@link org.depengine.api.device.Devices} for who owns what, and how to keep devices open).
     *
     * @throws IllegalStateException if called from inside an op of this engine
     */
    @Override
    void close();
}
