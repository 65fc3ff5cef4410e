package org.depengine.core.tracker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.depengine.api.AsyncFn;
import org.depengine.api.Context;
import org.depengine.api.FnProperty;
import org.depengine.api.SyncFn;
import org.depengine.api.listen.OpInfo;
import org.jetbrains.lincheck.Lincheck;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;

/**
 * Lincheck: the completion core of an op ({@link OpLife}: its state word, the rows of
 * {@link OpTransition}), on one started async op whose completion was handed out, as the engine drives
 * it from several threads at once:
 * <ul>
 *   <li>completions racing (the op's callback, {@link OpBlock#complete()} and {@link OpBlock#fail},
 *   and a device's done report, {@link OpBlock#claim()} then {@link OpBlock#completeClaimed}): exactly
 *   one wins; a losing callback throws {@link IllegalStateException} with its message, a losing report
 *   gets {@code false}; the host completes the op once, leaves its pending count once and finishes
 *   it;</li>
 *   <li>the in-flight flag against completion, with the registry protocol of the engine's diagnostics
 *   ({@code Diagnostics.inFlight} and the host's completion hook): the op is taken out of the registry
 *   exactly once if it completes, and stays in it if not;</li>
 *   <li>the queries are monotonic: a thread that saw a later phase never sees an earlier one;</li>
 *   <li>{@link OpBlock#awaitFinished} against the completing host, its in-flight flag and a racing
 *   second completion (the general-purpose model checker, {@link Lincheck#runConcurrentTest}): the
 *   awaiter returns only once the op is finished, and everything above still holds with it parked.</li>
 * </ul>
 * The runner's own completions (an op whose completion it never handed out) cannot race by
 * construction; the sequential tests below check them.
 *
 * <p>What this cannot show: Lincheck lets a park return at any time (the JDK allows spurious wake-ups),
 * so a lost wake-up would not hang here. That the awaiter is always woken rests on the protocol in
 * OpLife's implementation overview. The completion and in-flight checks do have teeth: a
 * check-then-set claim and a flag set after completion both fail {@link #modelChecking()}.
 *
 * <p>Short in CI; ten times longer with {@code -Ddepengine.test.long=true}.
 */
public class OpStateModelCheckTest {
    private static final RuntimeException ERROR = new RuntimeException("boom");
    private static final String SECOND = "op 'op' was already completed: %s is a second completion; "
            + "call complete() or fail() exactly once per run";
    private static final String SECOND_COMPLETE = String.format(SECOND, "complete()");
    private static final String SECOND_FAIL = String.format(SECOND, "fail(" + ERROR + ")");

    private final Fixture f = new Fixture();
    private final AtomicInteger completers = new AtomicInteger();
    private final AtomicBoolean inFlightCalled = new AtomicBoolean();
    private final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
    private volatile OpInfo.Outcome won; // the outcome of the winning completion

    /** Lincheck makes one instance per run. */
    public OpStateModelCheckTest() {
    }

    /**
     * One started op with the engine's side around it: a host whose completion hook unregisters it the
     * way the engine's does, a pending count, and the in-flight registry. The op runs its own completion
     * (the engine's code). The thread that makes the fixture is the op's awaiter.
     */
    static final class Fixture {
        final Set<OpBlock> registry = ConcurrentHashMap.newKeySet();
        final AtomicInteger completions = new AtomicInteger();
        final AtomicInteger exits = new AtomicInteger();
        final AtomicInteger removedByHost = new AtomicInteger();
        final AtomicInteger removedByCaller = new AtomicInteger();
        final OpBlock op;

        Fixture() {
            this(true, false);
        }

        /** {@code sync}: a sync op (its runner alone completes it), else an async op whose callback is out. */
        Fixture(boolean started, boolean sync) {
            OpHost host = new OpHost() {
                private final Registration registration = new Registration();

                @Override
                public Registration registration() {
                    return registration;
                }

                @Override
                public void ready(OpBlock o) {
                    throw new AssertionError("an op with no variables is never released");
                }

                @Override
                public void completed(OpBlock o, Failure own) {
                    completions.incrementAndGet();
                    if (o.isInFlight()) {
                        registry.remove(o);
                        removedByHost.incrementAndGet();
                    }
                }
            };
            Object fn = sync ? (SyncFn) ctx -> { } : (AsyncFn) (ctx, cb) -> { };
            OpDef def = new OpDef(new Object(), fn, new Var[0], new Var[0], FnProperty.NORMAL, "op", OpDef.Kind.USER);
            op = new OpBlock(def, host, Context.cpu(), 0, false, 0, null, exits::incrementAndGet, null);
            op.expectWaiter();
            if (started) {
                op.start(null);
            }
        }

        /** What {@code Diagnostics.inFlight} does: register, flag, and unregister if the op completed first. */
        void inFlight() {
            registry.add(op);
            if (!op.markInFlight(false)) {
                registry.remove(op);
                removedByCaller.incrementAndGet();
            }
        }

        /** A device's done report, as the engine makes it: true if it claimed and completed the op. */
        boolean deviceReport() {
            if (!op.claim()) {
                return false;
            }
            op.completeClaimed(null);
            return true;
        }

        /** Runs a callback; null if it won, else the message of its IllegalStateException. */
        static String attempt(Runnable completion) {
            try {
                completion.run();
                return null;
            } catch (IllegalStateException e) {
                return e.getMessage();
            }
        }
    }

    // ---- the data-structure model check: operations on one started op ---------------------------------

    /** The op's callback completes it. */
    @Operation
    public void complete() {
        callback(f.op::complete, OpInfo.Outcome.DONE, SECOND_COMPLETE);
    }

    /** The op's callback fails it. */
    @Operation
    public void fail() {
        callback(() -> f.op.fail(ERROR), OpInfo.Outcome.FAILED, SECOND_FAIL);
    }

    /** A device reports it done (a launched op's completion is handed to its device). */
    @Operation
    public void deviceReport() {
        completers.incrementAndGet();
        if (f.deviceReport()) {
            won = OpInfo.Outcome.DONE;
        }
    }

    private void callback(Runnable call, OpInfo.Outcome outcome, String secondMessage) {
        completers.incrementAndGet();
        String refused = Fixture.attempt(call);
        if (refused == null) {
            won = outcome;
        } else if (!refused.equals(secondMessage)) {
            violations.add("a second completion threw '" + refused + "', not '" + secondMessage + "'");
        }
    }

    /** The op's function returned before its completion: the runner flags it in flight (once per run). */
    @Operation
    public void inFlight() {
        if (inFlightCalled.compareAndSet(false, true)) {
            f.inFlight();
        }
    }

    /** Reads the queries from the latest phase to the earliest: each must hold if the one before did. */
    @Operation
    public void observe() {
        boolean finished = f.op.isFinished();
        boolean completed = f.op.isCompleted();
        boolean inFlight = f.op.isInFlight();
        boolean started = f.op.isStarted();
        if (finished && !completed) {
            violations.add("finished, then not completed");
        }
        if ((completed || inFlight) && !started) {
            violations.add("completed or in flight, then not started");
        }
        if (f.op.isCancelled()) {
            violations.add("cancelled without a refused registration");
        }
    }

    /** Once every thread is done: one winner if any completion ran, and the registry kept straight. */
    @Validate
    public void oneCompletionAndTheRegistryKeptStraight() {
        List<String> problems = new ArrayList<>(violations);
        OpBlock op = f.op;
        boolean any = completers.get() > 0;
        int expected = any ? 1 : 0;
        if (f.completions.get() != expected || f.exits.get() != expected) {
            problems.add(completers.get() + " completion call(s): the host completed the op " + f.completions.get()
                    + " time(s) and left its count " + f.exits.get() + " time(s), not " + expected);
        }
        if (op.isCompleted() != any || op.isFinished() != any) {
            problems.add("completed " + op.isCompleted() + ", finished " + op.isFinished() + " after "
                    + completers.get() + " completion call(s)");
        }
        if (any && op.outcome() != won) {
            problems.add("outcome " + op.outcome() + ", but the winning call was " + won);
        }
        int removals = f.removedByHost.get() + f.removedByCaller.get();
        if (inFlightCalled.get()) {
            if (any ? removals != 1 || !f.registry.isEmpty() : removals != 0 || !f.registry.contains(op)) {
                problems.add("in flight and " + (any ? "" : "not ") + "completed: removed by the host "
                        + f.removedByHost.get() + ", by the caller " + f.removedByCaller.get() + ", registry " + f.registry.size());
            }
            if (op.isInFlight() != (f.removedByCaller.get() == 0)) {
                problems.add("flagged " + op.isInFlight() + ", but the caller removed it " + f.removedByCaller.get() + " time(s)");
            }
        } else if (removals != 0 || op.isInFlight()) {
            problems.add("never flagged in flight, yet flagged or removed");
        }
        if (!problems.isEmpty()) {
            throw new IllegalStateException(String.join("; ", problems));
        }
    }

    /** 1, or 10 with -Ddepengine.test.long=true. */
    static int scale() {
        return TrackerModelCheckTest.scale();
    }

    static ModelCheckingOptions modelCheckingOptions() {
        return TrackerModelCheckTest.ignoringTheRecorder(new ModelCheckingOptions())
                .iterations(6 * scale())
                .invocationsPerIteration(200)
                .threads(3)
                .actorsPerThread(2)
                .actorsBefore(1)
                .actorsAfter(1);
    }

    @Test
    void modelChecking() {
        modelCheckingOptions().check(OpStateModelCheckTest.class);
    }

    /** One short model check, for {@link OpTransitionTableTest} run on its own. */
    void modelCheckingOnce() {
        modelCheckingOptions().iterations(2).check(OpStateModelCheckTest.class);
    }

    @Test
    void stress() {
        new StressOptions()
                .iterations(10 * scale())
                .invocationsPerIteration(1_000)
                .threads(3)
                .actorsPerThread(2)
                .actorsBefore(1)
                .actorsAfter(1)
                .check(OpStateModelCheckTest.class);
    }

    // ---- the general-purpose model checker: the awaiter against the completers -------------------------

    private static int invocations() {
        return 500 * scale();
    }

    @Test
    void awaitFinishedRacingTheCallbackAndTheInFlightFlag() {
        // A callback completes the op on one thread while its runner flags it in flight on another; the
        // pusher waits for it (a wait's caller, the naive engine). Every interleaving must wake the awaiter.
        Lincheck.runConcurrentTest(invocations(), () -> {
            Fixture x = new Fixture();
            Thread callback = new Thread(x.op::complete);
            Thread runner = new Thread(x::inFlight);
            callback.start();
            runner.start();
            boolean finished = await(x.op);
            join(callback);
            join(runner);
            assertTrue(finished && x.op.isFinished(), "awaitFinished returned before the op was finished");
            assertEquals(1, x.exits.get(), "the pending count was left once");
            assertTrue(x.registry.isEmpty(), "the registry forgot the op");
            assertEquals(1, x.removedByHost.get() + x.removedByCaller.get(), "taken out of the registry once");
        });
    }

    @Test
    void racingCompletionsWakeTheAwaiterOnce() {
        // A callback and a device's report race (a plugin reporting an op its callback completed, say):
        // one wins, the other is refused; the awaiter wakes either way.
        Lincheck.runConcurrentTest(invocations(), () -> {
            Fixture x = new Fixture();
            String[] refused = new String[1];
            boolean[] reported = new boolean[1];
            Thread a = new Thread(() -> refused[0] = Fixture.attempt(x.op::complete));
            Thread b = new Thread(() -> reported[0] = x.deviceReport());
            a.start();
            b.start();
            boolean finished = await(x.op);
            join(a);
            join(b);
            assertTrue(finished && x.op.isFinished(), "awaitFinished returned before the op was finished");
            assertTrue((refused[0] == null) != reported[0], "exactly one completion won");
            if (refused[0] != null) {
                assertEquals(SECOND_COMPLETE, refused[0]);
            }
            assertEquals(1, x.completions.get(), "the host completed it once");
        });
    }

    @Test
    void theRunnersCompletionWakesTheAwaiter() {
        // A sync op's runner completes it with no claim (FINISH_RUN) while its pusher waits for it.
        Lincheck.runConcurrentTest(invocations(), () -> {
            Fixture x = new Fixture(false, true);
            Thread runner = new Thread(() -> {
                x.op.start(null);
                x.op.completeRun(null);
            });
            runner.start();
            boolean finished = await(x.op);
            join(runner);
            assertTrue(finished && x.op.isFinished(), "awaitFinished returned before the op was finished");
            assertEquals(1, x.completions.get(), "the host completed it once");
            assertEquals(1, x.exits.get(), "the pending count was left once");
        });
    }

    private static boolean await(OpBlock op) {
        try {
            return op.awaitFinished(Long.MAX_VALUE);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    private static void join(Thread t) {
        try {
            t.join();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    // ---- sequential rules ------------------------------------------------------------------------------

    @Test
    void aRefusedRegistrationCancelsTheOpBeforeItRuns() {
        Object owner = new Object();
        Var v = new Var(owner, "v");
        SyncFn fn = ctx -> { };
        AtomicInteger completed = new AtomicInteger();
        OpHost host = new OpHost() {
            private final Registration registration = new Registration();

            @Override
            public Registration registration() {
                return registration;
            }

            @Override
            public void ready(OpBlock o) {
            }

            @Override
            public void completed(OpBlock o, Failure own) {
                completed.incrementAndGet();
            }
        };
        OpBlock delete = new OpBlock(new OpDef(owner, fn, new Var[0], new Var[] {v}, FnProperty.DELETE_VAR, "del",
                OpDef.Kind.DELETE_VAR), host, Context.cpu(), 0, false, 1, null, null, null);
        assertNull(delete.register());
        assertTrue(delete.dropGuard());
        OpBlock late = new OpBlock(new OpDef(owner, fn, new Var[] {v}, new Var[0], FnProperty.NORMAL, "late",
                OpDef.Kind.USER), host, Context.cpu(), 0, false, 2, null, null, null);
        assertFalse(late.isCancelled());
        RuntimeException refused = late.register();
        assertNotNull(refused);
        assertTrue(late.isCancelled() && late.cancellation() == refused, "cancelled, the exception kept");
        assertTrue(late.dropGuard(), "nothing will release it: ready at once");
        late.start(null);
        assertTrue(late.isCancelled() && late.isStarted(), "start keeps it cancelled");
        late.skip(null);
        assertTrue(late.isCancelled() && late.isFinished() && late.outcome() == OpInfo.Outcome.SKIPPED);
        assertEquals(1, completed.get());
    }

    @Test
    void nothingClaimsAnOpBeforeItStarts() {
        Fixture x = new Fixture(false, false);
        assertThrows(IllegalStateException.class, x.op::claim);
        assertThrows(IllegalStateException.class, x.op::complete);
        assertFalse(x.op.isStarted() || x.op.isCompleted());
        assertEquals(0, x.completions.get() + x.exits.get());
    }

    @Test
    void theRunnerCompletesASyncOpWithoutAClaimAndItsCallbackIsRefused() {
        Fixture x = new Fixture(true, true);
        IllegalStateException e = assertThrows(IllegalStateException.class, x.op::complete);
        assertTrue(e.getMessage().contains("synchronous"), e.getMessage());
        assertFalse(x.op.isCompleted(), "a refused callback changes nothing");
        x.op.completeRun(null);
        assertTrue(x.op.isFinished() && x.op.outcome() == OpInfo.Outcome.DONE);
        assertEquals(1, x.completions.get());
        assertEquals(1, x.exits.get());
        assertFalse(x.op.claim(), "a finished op cannot be claimed");
    }

    @Test
    void theRunnerFailsASyncOpWithItsOwnFailure() {
        Fixture x = new Fixture(true, true);
        x.op.completeRun(ERROR);
        assertTrue(x.op.isFinished() && x.op.outcome() == OpInfo.Outcome.FAILED);
        assertEquals(ERROR, x.op.failure());
    }

    @Test
    void theLifecycleOnlyMovesForwardWithinARun() {
        Fixture x = new Fixture();
        assertFalse(x.op.isCompleted() || x.op.isFinished(), "started only");
        assertTrue(x.op.markInFlight(false));
        x.op.complete();
        assertTrue(x.op.isInFlight() && x.op.isFinished(), "the flag outlives completion");
        assertEquals(1, x.exits.get(), "the completion left the pending count");
        assertFalse(x.op.markInFlight(false), "too late");
        assertFalse(x.deviceReport(), "a second completer is refused");
        IllegalStateException second = assertThrows(IllegalStateException.class, () -> x.op.fail(ERROR));
        assertEquals(SECOND_FAIL, second.getMessage());
        assertEquals(1, x.completions.get());
    }

    @Test
    void onlyTheAwaiterMayWait() throws Exception {
        Fixture x = new Fixture();
        IllegalStateException[] refused = new IllegalStateException[1];
        Thread other = new Thread(() -> {
            try {
                x.op.awaitFinished(Long.MAX_VALUE);
            } catch (IllegalStateException e) {
                refused[0] = e;
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        other.start();
        other.join();
        assertNotNull(refused[0], "another thread is refused, not parked where the finish would not wake it");
        assertFalse(x.op.awaitFinished(System.nanoTime() + 1_000_000), "times out while running");
        x.op.complete();
        assertTrue(x.op.awaitFinished(Long.MAX_VALUE));
    }
}
