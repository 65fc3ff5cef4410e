package org.depengine.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.depengine.api.CallbackOnComplete;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.EngineDiagnostics;
import org.depengine.api.EngineMetrics;
import org.depengine.api.EngineException;
import org.depengine.api.FnProperty;
import org.depengine.api.VarHandle;
import org.depengine.api.WaitTimeoutException;
import org.depengine.api.spi.EngineConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The base of every conformance suite: makes a fresh engine per test and closes it after, checking the
 * invariants every test must leave true, as Caffeine's suites check theirs after each test: nothing
 * pending in the engine, no op or blocked waiter left in its diagnostics, no thread of the engine
 * alive after its close, and, in a configuration with a listener, the listener protocol kept for
 * every op. A failure names the setup ({@link EngineSetup#label()}). The engine comes from the {@link EngineSetup} of the {@link EngineUnderTest} class the suite is
 * nested in (an {@link EngineConformance}); a suite run on its own (a plain subclass) overrides
 * {@link #engineName()} and, where it needs them, {@link #settings()} and {@link #contexts()}.
 */
public abstract class EngineTestBase {
    /** Generous bound on waits in tests that must not hang the build if the engine is broken. */
    protected static final Duration BOUND = Duration.ofSeconds(60);

    /** The engine under test; fresh for each test. */
    protected Engine engine;

    /** The setup handed down by the enclosing {@link EngineConformance}; null when run on its own. */
    private EngineSetup setup;

    /** The listener checks of the engines made by {@link #newEngine()} in this test, with their engines. */
    private final Map<Engine, ListenerProtocolCheck> listened = new IdentityHashMap<>();

    /** The threads alive before the test made its engine, so that the engine's leftovers can be told apart. */
    private Set<Thread> threadsBefore = Set.of();

    /** Called by {@link EngineUnderTest.UseEnclosingSetup} before each test. */
    final void useSetup(EngineSetup setup) {
        this.setup = setup;
    }

    /** Whether a setup was handed down (the suite is nested in an {@link EngineUnderTest}). */
    final boolean hasSetup() {
        return setup != null;
    }

    /** The setup handed down, failing with what to do when there is none. */
    final EngineSetup setup() {
        if (setup == null) {
            throw new IllegalStateException(getClass().getName() + " has no engine to test: nest it in an "
                    + "EngineConformance subclass or another EngineUnderTest (see the org.depengine.testkit package "
                    + "documentation), "
                    + "or override engineName()");
        }
        return setup;
    }

    /** The engine name to test, e.g. {@code "naive"}; by default the enclosing setup's. */
    protected String engineName() {
        return setup().engine();
    }

    /** Settings for the engine under test; by default the enclosing setup's, or none when run on its own. */
    protected Map<String, String> settings() {
        return setup == null ? Map.of() : setup.settings();
    }

    /** The contexts ops are spread over in randomized workloads; by default the setup's, or {@code cpu:0}. */
    protected List<Context> contexts() {
        return setup == null ? List.of(Context.cpu()) : setup.contexts();
    }

    /** The configuration of the cross product this test runs in; {@link EngineSetup.Configuration#CPU} when run on its own. */
    protected EngineSetup.Configuration configuration() {
        return setup == null ? EngineSetup.Configuration.CPU : setup.configuration();
    }

    /**
     * The context a test pushes its ops to when it needs one and the rule it checks is not about the
     * CPU: the first of {@link #contexts()}, so that in an asynchronous configuration
     * ({@link EngineSetup.Ops#ASYNC_DEVICE}) they run on the stand-in device.
     */
    protected Context opContext() {
        return contexts().get(0);
    }

    /**
     * Whether the engine runs ops on threads of its own (so independent ops can overlap): the setup's
     * {@link EngineSetup#threaded()}. A suite run on its own, with no setup (its {@link #engineName()}
     * overridden), is taken as threaded unless it names the naive engine; override this to say otherwise.
     */
    protected boolean threaded() {
        return setup != null ? setup.threaded() : !"naive".equals(engineName());
    }

    /**
     * A new engine of the tested kind with {@link #settings()}; the hang doctor is off unless they set it.
     * In a configuration with a listener, a checking listener is attached to it (checked after the test
     * once the engine is closed).
     */
    protected Engine newEngine() {
        Map<String, String> s = new HashMap<>(settings());
        s.putIfAbsent("depengine.hangDoctorMs", "0");
        Engine e = Engine.create(engineName(), EngineConfig.of(s));
        if (setup != null && setup.configuration().listener()) {
            ListenerProtocolCheck check = new ListenerProtocolCheck();
            e.addListener(check);
            synchronized (listened) {
                listened.put(e, check);
            }
        }
        return e;
    }

    /** An async op that has started and holds its variables until {@link #complete()} is called. */
    protected static final class Held {
        private final CallbackOnComplete callback;
        private final Thread pusher;

        Held(CallbackOnComplete callback, Thread pusher) {
            this.callback = callback;
            this.pusher = pusher;
        }

        /** The op's callback, for tests that complete it themselves (then {@link #joinPusher()}). */
        public CallbackOnComplete callback() {
            return callback;
        }

        /** Joins the thread that pushed the op (bounded); the naive engine's push returns only once the op completed. */
        public void joinPusher() throws InterruptedException {
            pusher.join(BOUND.toMillis());
            if (pusher.isAlive()) {
                throw new AssertionError("the push of a held op did not return after it completed");
            }
        }

        /** Completes the op, and joins the thread that pushed it, bounded (the naive engine's push returns only now). */
        public void complete() throws InterruptedException {
            callback.complete();
            joinPusher();
        }
    }

    /**
     * Pushes, from a helper thread, an async op that completes only when told to, and returns once it
     * has started. A helper thread pushes because the naive engine's push blocks until completion.
     */
    protected Held pushHeld(List<VarHandle> reads, List<VarHandle> writes, String name) {
        AtomicReference<CallbackOnComplete> cb =
                new AtomicReference<>();
        Thread pusher = new Thread(() -> engine.pushAsync((ctx, done) -> cb.set(done), Context.cpu(), reads, writes,
                FnProperty.NORMAL, 0, name), "held-pusher-" + name);
        pusher.start();
        long deadline = System.nanoTime() + BOUND.toNanos();
        while (cb.get() == null) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("held op '" + name + "' never started");
            }
            Thread.onSpinWait();
        }
        return new Held(cb.get(), pusher);
    }

    /**
     * Runs {@code push} on a helper thread and returns once the push has registered its op: on a
     * threaded engine when the push has returned; on the naive engine (whose push blocks until the op
     * ran) when the helper is parked waiting for its op, or done. Join the returned thread (bounded)
     * once the op can run.
     */
    protected Thread pushInBackground(String name, Runnable push) {
        Thread t = new Thread(push, "background-pusher-" + name);
        t.start();
        awaitThread(t, s -> s == Thread.State.TERMINATED || (!threaded() && s == Thread.State.WAITING),
                "the background push of '" + name + "' to register");
        return t;
    }

    /**
     * Polls {@code t}'s state until {@code done} accepts it, failing after {@link #BOUND}. A wait for a
     * condition, not a sleep: it returns as soon as the thread gets there.
     */
    protected static void awaitThread(Thread t, Predicate<Thread.State> done, String what) {
        long deadline = System.nanoTime() + BOUND.toNanos();
        while (!done.test(t.getState())) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what + "; thread " + t.getName() + " is " + t.getState());
            }
            Thread.onSpinWait();
        }
    }

    /**
     * Runs each of {@code bodies} on a thread of its own (named {@code name}), all at once, joins them
     * within {@link #BOUND}, and fails naming what any of them threw.
     */
    protected static void runOnThreads(String name, List<? extends ThrowingRunnable> bodies) throws InterruptedException {
        List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        for (ThrowingRunnable body : bodies) {
            Thread t = new Thread(() -> {
                try {
                    body.run();
                } catch (Throwable e) {
                    errors.add(e);
                }
            }, name);
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            joinBounded(t);
        }
        if (!errors.isEmpty()) {
            throw new AssertionError("a " + name + " thread failed: " + errors, errors.get(0));
        }
    }

    /** A body for {@link #runOnThreads}, which may throw. */
    @FunctionalInterface
    protected interface ThrowingRunnable {
        /** Runs the body. */
        void run() throws Throwable;
    }

    /** Joins {@code t} within {@link #BOUND}, failing if it is still alive. */
    protected static void joinBounded(Thread t) throws InterruptedException {
        t.join(BOUND.toMillis());
        if (t.isAlive()) {
            throw new AssertionError("thread " + t.getName() + " did not finish within " + BOUND);
        }
    }

    @BeforeEach
    void createEngine() {
        threadsBefore = Thread.getAllStackTraces().keySet();
        engine = newEngine();
    }

    @AfterEach
    void closeEngine() {
        if (engine != null && !engine.isClosed()) {
            try {
                engine.waitForAll(BOUND); // bounded, so a broken engine fails the build instead of hanging it
            } catch (WaitTimeoutException e) {
                throw invariant("ops still pending after the test; engine left open: " + e.getMessage(), e);
            } catch (EngineException e) {
                // an op failure the test did not collect: not what this check is about
            }
            checkNothingStuck(engine);
            engine.close();
        }
        checkListeners();
        checkNoThreadsLeft();
    }

    /** After {@code waitForAll}: the diagnostics count no pending op and, once threads have left, list no op and no waiter. */
    private void checkNothingStuck(Engine e) {
        long deadline = System.nanoTime() + BOUND.toNanos();
        EngineDiagnostics d;
        try {
            d = e.diagnostics();
            // With nothing pending, a waiter woken by the last op may still be on its way out of its wait, and
            // the thread of an async op that completed before its function returned may still be in that
            // function (listed RUNNING): both leave on their own, so give them the bound; a stuck one stays.
            while (d.pendingOps() == 0 && (!d.ops().isEmpty() || !d.waiters().isEmpty()) && System.nanoTime() < deadline) {
                Thread.onSpinWait();
                d = e.diagnostics();
            }
        } catch (UnsupportedOperationException noDiagnostics) {
            return; // an engine without diagnostics: nothing to look at
        }
        if (d.pendingOps() != 0 || !d.ops().isEmpty() || !d.waiters().isEmpty()) {
            throw invariant("after waitForAll returned, the engine's diagnostics still show work:\n" + d.report(), null);
        }
        checkMetrics(e);
    }

    /**
     * After {@code waitForAll}: the engine's metrics agree with one another (for an engine that offers them).
     * A worker counts an op just after the op finished, so the check gives the workers the bound to get there.
     */
    private void checkMetrics(Engine e) {
        EngineMetrics m;
        try {
            m = e.metrics();
        } catch (UnsupportedOperationException noMetrics) {
            return;
        }
        long deadline = System.nanoTime() + BOUND.toNanos();
        String problem;
        while ((problem = metricsProblem(m)) != null && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        if (problem != null) {
            throw invariant("after waitForAll returned, the metrics disagree: " + problem, null);
        }
    }

    private static String metricsProblem(EngineMetrics m) {
        long run = 0;
        for (EngineMetrics.Group g : m.groups()) {
            long timed = g.runTime().count();
            long waited = g.queueWait().count();
            long completed = g.completed(); // read last: it only grows
            run += completed;
            if (timed > completed || waited > completed) {
                return "group " + g.name() + " timed more ops than it ran: " + timed + " and " + waited + " of " + completed;
            }
        }
        long pushed = m.opsPushed();
        if (m.pendingOps() != 0 || m.opsFailed() + m.opsSkipped() > pushed || m.opsReplayed() > pushed || run > pushed) {
            return m + ", pending " + m.pendingOps() + ", run by the groups " + run;
        }
        return null;
    }

    private void checkListeners() {
        List<String> problems = new ArrayList<>();
        synchronized (listened) {
            listened.forEach((e, check) -> {
                if (e.isClosed()) { // one the test left open is no listener's fault
                    check.problemsAfterClose().forEach(p -> problems.add(e.name() + ": " + p));
                }
            });
            listened.clear();
        }
        if (!problems.isEmpty()) {
            throw invariant("the listener protocol was broken: " + String.join("; ", problems), null);
        }
    }

    /** Every engine thread ({@code depengine-<engine>-…}) started during the test has ended once the engine closed. */
    private void checkNoThreadsLeft() {
        String prefix = "depengine-" + engineName() + "-";
        List<String> left = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && t.getName().startsWith(prefix) && !threadsBefore.contains(t)) {
                left.add(t.getName() + " (" + t.getState() + ")");
            }
        }
        threadsBefore = Set.of();
        if (!left.isEmpty()) {
            throw invariant("engine threads still alive after the test's engines closed: " + left, null);
        }
    }

    /** An invariant broken after the test, naming the setup. */
    private AssertionError invariant(String what, Throwable cause) {
        return new AssertionError((setup == null ? engineName() : setup.label()) + ": " + what, cause);
    }
}
