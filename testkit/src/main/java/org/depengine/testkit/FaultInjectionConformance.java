package org.depengine.testkit;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.depengine.api.CallbackOnComplete;
import org.depengine.api.Context;
import org.depengine.api.EngineException;
import org.depengine.api.FnProperty;
import org.depengine.api.SyncFn;
import org.depengine.api.VarHandle;
import org.depengine.api.WaitTimeoutException;
import org.junit.jupiter.api.Test;

/**
 * Fault injection: ops that throw every kind of throwable, async ops completed from foreign threads,
 * twice, or never, waiters and workers that get interrupted. After each fault the engine keeps
 * working, no op is lost or run twice (every op counts its runs), and the failure reaches exactly the
 * waiters of the variables it was written to.
 */
public abstract class FaultInjectionConformance extends EngineTestBase {
    private static final Duration SHORT = Duration.ofMillis(50);

    /** A checked throwable that is neither an {@link Exception} nor an {@link Error}. */
    static final class RawThrowable extends Throwable {
        private static final long serialVersionUID = 1L;

        RawThrowable(String message) {
            super(message);
        }
    }

    /** Throws {@code t}, checked or not, from code that declares nothing. */
    @SuppressWarnings("unchecked")
    static <T extends Throwable> RuntimeException sneakyThrow(Throwable t) throws T {
        throw (T) t;
    }

    /** Real, unbounded recursion: ends in a {@link StackOverflowError}. */
    private static int recurse(int depth) {
        return recurse(depth + 1) + 1;
    }

    /** Pushes, on {@code in}, an op that fails; it counts its runs in {@code runs}. */
    @FunctionalInterface
    private interface FaultyPush {
        void push(VarHandle in, String name, AtomicInteger runs);
    }

    private void pushSyncFault(VarHandle in, String name, AtomicInteger runs, SyncFn body) {
        engine.pushSync(ctx -> {
            runs.incrementAndGet();
            body.run(ctx);
        }, opContext(), List.of(), List.of(in), FnProperty.NORMAL, 0, name);
    }

    /**
     * The common scenario: an op writes {@code in}; the faulty op writes it again; a dependant reads
     * it (and must be skipped); an independent op runs. The failure must reach the dependant's output
     * and be reported once; then the engine serves 200 more ops, each exactly once.
     */
    private void faultIsContained(String name, FaultyPush faulty, Predicate<Throwable> isTheFault) {
        VarHandle in = engine.newVariable(name + "-in");
        VarHandle out = engine.newVariable(name + "-out");
        VarHandle independent = engine.newVariable(name + "-independent");
        AtomicInteger before = new AtomicInteger();
        AtomicInteger faultyRuns = new AtomicInteger();
        AtomicInteger dependantRuns = new AtomicInteger();
        AtomicInteger independentRuns = new AtomicInteger();
        engine.pushSync(ctx -> before.incrementAndGet(), opContext(), List.of(), List.of(in), FnProperty.NORMAL, 0, name + "-before");
        faulty.push(in, name, faultyRuns);
        engine.pushSync(ctx -> dependantRuns.incrementAndGet(), opContext(), List.of(in), List.of(out), FnProperty.NORMAL, 0,
                name + "-dependant");
        engine.pushSync(ctx -> independentRuns.incrementAndGet(), opContext(), List.of(), List.of(independent), FnProperty.NORMAL, 0,
                name + "-independent");

        assertDoesNotThrow(() -> engine.waitForVar(independent, BOUND), "an independent variable does not carry the failure");
        EngineException e = assertThrows(EngineException.class, () -> engine.waitForVar(out, BOUND),
                "the dependant's output carries the failure");
        assertFalse(e instanceof WaitTimeoutException, "not a timeout: " + e);
        assertTrue(isTheFault.test(e.getCause()), "the cause is the op's own throwable: " + e.getCause());
        assertTrue(e.getMessage().contains("'" + name + "'"), "the message names the failed op: " + e.getMessage());
        assertDoesNotThrow(() -> engine.waitForVar(in, BOUND), "reported once: cleared on the op's own output too");
        assertDoesNotThrow(() -> engine.waitForAll(BOUND), "reported once: not again by waitForAll");
        assertEquals(1, before.get(), "the op before the fault ran once");
        assertEquals(1, faultyRuns.get(), "the faulty op ran once");
        assertEquals(0, dependantRuns.get(), "the dependant of a failed op is skipped");
        assertEquals(1, independentRuns.get(), "the independent op ran once");
        assertEquals(2, in.version(), "both writes of 'in' count");
        assertEquals(1, out.version(), "the skipped write counts");
        engineStillServes(in, 100);
    }

    /** Pushes {@code n} ops on {@code chain} and {@code n} independent ones; each must run exactly once, in order. */
    private void engineStillServes(VarHandle chain, int n) {
        long v0 = chain.version();
        int[] order = new int[n];
        AtomicInteger chainRuns = new AtomicInteger();
        AtomicInteger independentRuns = new AtomicInteger();
        for (int i = 0; i < n; i++) {
            int k = i;
            engine.pushSync(ctx -> order[k] = chainRuns.incrementAndGet(), opContext(), List.of(), List.of(chain));
            engine.pushSync(ctx -> independentRuns.incrementAndGet(), opContext(), List.of(), List.of(engine.newVariable()));
        }
        engine.waitForAll(BOUND);
        assertEquals(n, chainRuns.get(), "every chained op ran exactly once after the fault");
        assertEquals(n, independentRuns.get(), "every independent op ran exactly once after the fault");
        for (int i = 0; i < n; i++) {
            assertEquals(i + 1, order[i], "chained ops run in push order");
        }
        assertEquals(v0 + n, chain.version());
    }

    // ---- throwables thrown by the op's function ---------------------------------------------------

    @Test
    void aRuntimeExceptionIsContained() {
        IllegalArgumentException boom = new IllegalArgumentException("bad shape");
        faultIsContained("runtime", (in, name, runs) -> pushSyncFault(in, name, runs, ctx -> {
            throw boom;
        }), t -> t == boom);
    }

    @Test
    void aDeclaredCheckedExceptionIsContained() {
        IOException boom = new IOException("disk gone");
        faultIsContained("checked", (in, name, runs) -> pushSyncFault(in, name, runs, ctx -> {
            throw boom;
        }), t -> t == boom);
    }

    @Test
    void aSneakyThrownCheckedExceptionIsContained() {
        TimeoutException boom = new TimeoutException("thrown where nothing declares it");
        faultIsContained("sneaky-checked", (in, name, runs) -> pushSyncFault(in, name, runs, ctx -> {
            throw sneakyThrow(boom);
        }), t -> t == boom);
    }

    @Test
    void aThrowableThatIsNeitherExceptionNorErrorIsContained() {
        RawThrowable boom = new RawThrowable("raw throwable");
        faultIsContained("raw-throwable", (in, name, runs) -> pushSyncFault(in, name, runs, ctx -> {
            throw sneakyThrow(boom);
        }), t -> t == boom);
    }

    @Test
    void aStackOverflowFromRealRecursionIsContained() {
        faultIsContained("recursion", (in, name, runs) -> pushSyncFault(in, name, runs, ctx -> recurse(0)),
                t -> t instanceof StackOverflowError);
    }

    @Test
    void aThrownOutOfMemoryErrorIsContained() {
        OutOfMemoryError boom = new OutOfMemoryError("simulated: Java heap space");
        faultIsContained("oom", (in, name, runs) -> pushSyncFault(in, name, runs, ctx -> {
            throw boom;
        }), t -> t == boom);
    }

    @Test
    void anAssertionErrorIsContained() {
        AssertionError boom = new AssertionError("invariant broken");
        faultIsContained("assertion", (in, name, runs) -> pushSyncFault(in, name, runs, ctx -> {
            throw boom;
        }), t -> t == boom);
    }

    // ---- async ops ---------------------------------------------------------------------------------

    @Test
    void anAsyncOpThrowingBeforeItCompletesIsContained() {
        IllegalStateException boom = new IllegalStateException("launch failed");
        faultIsContained("async-throws", (in, name, runs) -> engine.pushAsync((ctx, done) -> {
            runs.incrementAndGet();
            throw boom;
        }, Context.cpu(), List.of(), List.of(in), FnProperty.ASYNC, 0, name), t -> t == boom);
    }

    @Test
    void anAsyncOpSneakyThrowingIsContained() {
        RawThrowable boom = new RawThrowable("async raw throwable");
        faultIsContained("async-sneaky", (in, name, runs) -> engine.pushAsync((ctx, done) -> {
            runs.incrementAndGet();
            throw sneakyThrow(boom);
        }, opContext(), List.of(), List.of(in), FnProperty.NORMAL, 0, name), t -> t == boom);
    }

    @Test
    void anAsyncOpFailedFromAForeignThreadIsContained() {
        IOException boom = new IOException("remote call failed");
        faultIsContained("async-foreign-fail", (in, name, runs) -> engine.pushAsync((ctx, done) -> {
            runs.incrementAndGet();
            Thread t = new Thread(() -> done.fail(boom), "foreign-failer");
            t.start();
        }, Context.cpu(), List.of(), List.of(in), FnProperty.ASYNC, 0, name), t -> t == boom);
    }

    @Test
    void asyncOpsCompletedFromForeignThreadsReleaseTheirDependantsInOrderOnce() throws Exception {
        ExecutorService completers = Executors.newFixedThreadPool(2, r -> new Thread(r, "foreign-completer"));
        try {
            VarHandle v = engine.newVariable("v");
            int n = 300;
            List<Integer> writes = Collections.synchronizedList(new ArrayList<>());
            AtomicIntegerArray runs = new AtomicIntegerArray(n);
            AtomicInteger readerMismatches = new AtomicInteger();
            AtomicInteger readers = new AtomicInteger();
            for (int i = 0; i < n; i++) {
                int k = i;
                if (k % 3 == 0) {
                    engine.pushSync(ctx -> {
                        runs.incrementAndGet(k);
                        writes.add(k);
                    }, opContext(), List.of(), List.of(v), FnProperty.NORMAL, 0, "sync-" + k);
                } else {
                    engine.pushAsync((ctx, done) -> {
                        runs.incrementAndGet(k);
                        writes.add(k);
                        completers.execute(done::complete); // completes after the function returned, on another thread
                    }, Context.cpu(), List.of(), List.of(v), FnProperty.ASYNC, 0, "async-" + k);
                }
                if (k % 10 == 9) {
                    engine.pushSync(ctx -> {
                        readers.incrementAndGet();
                        if (writes.size() != k + 1) {
                            readerMismatches.incrementAndGet(); // a reader must see exactly the writes pushed before it
                        }
                    }, opContext(), List.of(v), List.of(engine.newVariable()), FnProperty.NORMAL, 0, "reader-" + k);
                }
            }
            engine.waitForVar(v, BOUND);
            engine.waitForAll(BOUND);
            for (int i = 0; i < n; i++) {
                assertEquals(1, runs.get(i), "op " + i + " ran once");
                assertEquals(i, writes.get(i), "writes in push order");
            }
            assertEquals(n / 10, readers.get());
            assertEquals(0, readerMismatches.get(), "a reader ran before the writes pushed before it completed");
            assertEquals(n, v.version());
        } finally {
            completers.shutdownNow();
            assertTrue(completers.awaitTermination(BOUND.toSeconds(), TimeUnit.SECONDS));
        }
    }

    @Test
    void aSecondCompletionIsRefusedAndReleasesNothing() throws Exception {
        for (int round = 0; round < 20; round++) {
            VarHandle a = engine.newVariable("a" + round);
            VarHandle b = engine.newVariable("b" + round);
            Held first = pushHeld(List.of(), List.of(a), "first-" + round);
            Held other = pushHeld(List.of(), List.of(b), "other-" + round);
            AtomicInteger successorRuns = new AtomicInteger();
            // The successor needs both: a second release by 'first' would start it before 'other' completes.
            Thread pusher = pushInBackground("successor-" + round, () -> engine.pushSync(ctx -> successorRuns.incrementAndGet(),
                    opContext(), List.of(a, b), List.of(engine.newVariable()), FnProperty.NORMAL, 0, "successor"));
            CallbackOnComplete cb = first.callback();
            cb.complete();
            first.joinPusher();
            IllegalStateException again = assertThrows(IllegalStateException.class, cb::complete);
            assertTrue(again.getMessage().contains("first-" + round) && again.getMessage().contains("already completed"),
                    again.getMessage());
            assertThrows(IllegalStateException.class, () -> cb.fail(new RuntimeException("late failure")));
            assertThrows(WaitTimeoutException.class, () -> engine.waitForAll(Duration.ofMillis(5)),
                    "'other' still holds b");
            assertEquals(0, successorRuns.get(), "a second completion released the successor early");
            other.complete();
            joinBounded(pusher);
            engine.waitForAll(BOUND);
            assertEquals(1, successorRuns.get(), "the successor ran exactly once");
            assertEquals(1, a.version(), "the second completion did not count as a write");
            assertDoesNotThrow(() -> engine.waitForVar(a, BOUND), "the refused fail() did not attach a failure");
        }
    }

    @Test
    void twoThreadsRacingToCompleteOneOpExactlyOneWins() throws Exception {
        for (int round = 0; round < 100; round++) {
            VarHandle v = engine.newVariable("v" + round);
            Held held = pushHeld(List.of(), List.of(v), "raced-" + round);
            AtomicInteger successorRuns = new AtomicInteger();
            Thread pusher = pushInBackground("successor-" + round, () -> engine.pushSync(ctx -> successorRuns.incrementAndGet(),
                    opContext(), List.of(v), List.of(engine.newVariable()), FnProperty.NORMAL, 0, "successor"));
            CyclicBarrier start = new CyclicBarrier(2);
            AtomicInteger refused = new AtomicInteger();
            AtomicReference<Throwable> unexpected = new AtomicReference<>();
            Runnable race = () -> {
                try {
                    start.await(BOUND.toSeconds(), TimeUnit.SECONDS);
                    held.callback().complete();
                } catch (IllegalStateException e) {
                    refused.incrementAndGet();
                } catch (Throwable t) {
                    unexpected.set(t);
                }
            };
            Thread r1 = new Thread(race, "racer-1");
            Thread r2 = new Thread(race, "racer-2");
            r1.start();
            r2.start();
            joinBounded(r1);
            joinBounded(r2);
            held.joinPusher();
            joinBounded(pusher);
            assertEquals(null, unexpected.get());
            assertEquals(1, refused.get(), "exactly one of two racing completions is refused");
            engine.waitForAll(BOUND);
            assertEquals(1, successorRuns.get(), "the successor ran exactly once");
            assertEquals(1, v.version());
        }
    }

    @Test
    void anOpThatNeverCompletesTimesOutBoundedWaitsAndTheEngineKeepsServing() throws Exception {
        VarHandle stuckVar = engine.newVariable("stuck-var");
        Held stuck = pushHeld(List.of(), List.of(stuckVar), "never-completes");
        AtomicInteger dependantRuns = new AtomicInteger();
        Thread pusher = pushInBackground("dependant", () -> engine.pushSync(ctx -> dependantRuns.incrementAndGet(),
                opContext(), List.of(stuckVar), List.of(engine.newVariable()), FnProperty.NORMAL, 0, "dependant"));
        try {
            WaitTimeoutException onVar = assertThrows(WaitTimeoutException.class, () -> engine.waitForVar(stuckVar, SHORT));
            assertTrue(onVar.getMessage().contains("never-completes") && onVar.getMessage().contains("stuck-var"),
                    "names the op and the variable: " + onVar.getMessage());
            WaitTimeoutException onAll = assertThrows(WaitTimeoutException.class, () -> engine.waitForAll(SHORT));
            assertTrue(onAll.getMessage().contains("waitForAll"), onAll.getMessage());

            // Independent work is served meanwhile, each op once.
            VarHandle other = engine.newVariable("other");
            AtomicInteger otherRuns = new AtomicInteger();
            for (int i = 0; i < 200; i++) {
                engine.pushSync(ctx -> otherRuns.incrementAndGet(), opContext(), List.of(), List.of(other));
            }
            engine.waitForVar(other, BOUND);
            assertEquals(200, otherRuns.get());
            assertEquals(0, dependantRuns.get(), "the dependant of the stuck op must not run");
            // A timed-out wait changed nothing: a second one times out too.
            assertThrows(WaitTimeoutException.class, () -> engine.waitForVar(stuckVar, Duration.ZERO));
        } finally {
            stuck.complete();
        }
        joinBounded(pusher);
        engine.waitForAll(BOUND);
        assertEquals(1, dependantRuns.get(), "released once the stuck op completed");
        assertEquals(1, stuckVar.version());
    }

    @Test
    void aWaitForAllTimeoutNamesTheOpItIsStillWaitingFor() throws Exception {
        Held stuck = pushHeld(List.of(), List.of(engine.newVariable("stuck-var")), "never-completes");
        try {
            WaitTimeoutException e = assertThrows(WaitTimeoutException.class, () -> engine.waitForAll(SHORT));
            // Engine.waitForAll(Duration): "the message lists what is pending".
            assertTrue(e.getMessage().contains("never-completes"), "names the pending op: " + e.getMessage());
        } finally {
            stuck.complete();
        }
    }

    // ---- interrupts ---------------------------------------------------------------------------------

    /** What a waiter thread saw: the throwable its wait threw, and its interrupt status afterwards. */
    private static final class WaiterOutcome {
        volatile Throwable thrown;
        volatile boolean interruptedAfter;
    }

    /**
     * Blocks a thread in {@code wait} (given the variable a stuck op holds), interrupts it, and checks
     * what the wait did: an {@link EngineException} caused by the interrupt, whose message mentions
     * {@code what}, with the interrupt status set again; and that the engine is unaffected.
     */
    private void interruptedWaitThrowsAndKeepsTheStatus(String what, Consumer<VarHandle> wait,
                                                        Thread.State blockedState) throws Exception {
        VarHandle v = engine.newVariable("watched");
        Held stuck = pushHeld(List.of(), List.of(v), "stuck");
        WaiterOutcome outcome = new WaiterOutcome();
        Thread waiter = new Thread(() -> {
            try {
                wait.accept(v);
            } catch (Throwable t) {
                outcome.thrown = t;
            }
            outcome.interruptedAfter = Thread.currentThread().isInterrupted();
        }, "interrupted-waiter");
        try {
            waiter.start();
            // Blocked, or about to: an interrupt that arrives first is seen when the wait starts blocking.
            awaitThread(waiter, s -> s == blockedState, "the waiter to block (" + what + ")");
            waiter.interrupt();
            joinBounded(waiter);
        } finally {
            stuck.complete();
        }
        EngineException e = assertInstanceOf(EngineException.class, outcome.thrown, "an interrupted wait throws");
        assertFalse(e instanceof WaitTimeoutException, "an interrupt is not a timeout: " + e);
        assertInstanceOf(InterruptedException.class, e.getCause(), "the cause is the interrupt");
        assertTrue(e.getMessage().contains("interrupted") && e.getMessage().contains(what), e.getMessage());
        assertTrue(outcome.interruptedAfter, "the interrupt status is set again");
        // The interrupted wait left nothing behind: the op completes and new waits work.
        engine.waitForVar(v, BOUND);
        engine.waitForAll(BOUND);
        assertEquals(1, v.version());
        engineStillServes(v, 50);
    }

    @Test
    void aThreadInterruptedInWaitForVarGetsAnEngineExceptionAndKeepsItsInterruptStatus() throws Exception {
        interruptedWaitThrowsAndKeepsTheStatus("watched", v -> engine.waitForVar(v), Thread.State.WAITING);
    }

    @Test
    void aThreadInterruptedInABoundedWaitForVarGetsAnEngineExceptionNotATimeout() throws Exception {
        interruptedWaitThrowsAndKeepsTheStatus("watched", v -> engine.waitForVar(v, BOUND), Thread.State.TIMED_WAITING);
    }

    @Test
    void aThreadInterruptedInWaitForAllGetsAnEngineExceptionAndKeepsItsInterruptStatus() throws Exception {
        interruptedWaitThrowsAndKeepsTheStatus("waitForAll", v -> engine.waitForAll(), Thread.State.WAITING);
    }

    @Test
    void aThreadInterruptedInABoundedWaitForAllGetsAnEngineExceptionNotATimeout() throws Exception {
        interruptedWaitThrowsAndKeepsTheStatus("waitForAll", v -> engine.waitForAll(BOUND), Thread.State.TIMED_WAITING);
    }

    @Test
    void aWaitEnteredWithTheInterruptStatusSetThrowsOnlyIfItHasToBlock() throws Exception {
        VarHandle free = engine.newVariable("free");
        VarHandle busy = engine.newVariable("busy");
        Held stuck = pushHeld(List.of(), List.of(busy), "stuck");
        try {
            Thread.currentThread().interrupt();
            assertDoesNotThrow(() -> engine.waitForVar(free), "nothing to wait for: returns");
            assertTrue(Thread.currentThread().isInterrupted(), "and leaves the status alone");
            EngineException e = assertThrows(EngineException.class, () -> engine.waitForVar(busy));
            assertInstanceOf(InterruptedException.class, e.getCause());
            assertTrue(Thread.interrupted(), "the status is set again (and cleared here)");
            Thread.currentThread().interrupt();
            e = assertThrows(EngineException.class, () -> engine.waitForAll());
            assertInstanceOf(InterruptedException.class, e.getCause());
            assertTrue(Thread.interrupted(), "the status is set again (and cleared here)");
        } finally {
            Thread.interrupted();
            stuck.complete();
        }
        engine.waitForVar(busy, BOUND);
        assertEquals(1, busy.version());
    }

    @Test
    void anOpThatInterruptsItsOwnThreadDoesNotStopTheEngine() {
        VarHandle v = engine.newVariable("v");
        int rounds = 20;
        AtomicInteger interrupters = new AtomicInteger();
        AtomicInteger successors = new AtomicInteger();
        AtomicInteger independents = new AtomicInteger();
        for (int i = 0; i < rounds; i++) {
            engine.pushSync(ctx -> {
                interrupters.incrementAndGet();
                Thread.currentThread().interrupt();
            }, opContext(), List.of(), List.of(v), FnProperty.NORMAL, 0, "interrupter-" + i);
            engine.pushSync(ctx -> successors.incrementAndGet(), opContext(), List.of(v), List.of(engine.newVariable()),
                    FnProperty.NORMAL, 0, "successor-" + i);
            engine.pushSync(ctx -> independents.incrementAndGet(), opContext(), List.of(), List.of(engine.newVariable()),
                    FnProperty.NORMAL, 0, "independent-" + i);
        }
        if (!threaded()) {
            // The ops ran on this thread, so it is this thread the ops interrupted.
            assertTrue(Thread.interrupted(), "an op on the pushing thread interrupted it");
        }
        engine.waitForAll(BOUND);
        assertEquals(rounds, interrupters.get());
        assertEquals(rounds, successors.get());
        assertEquals(rounds, independents.get());
        assertEquals(rounds, v.version());
        engineStillServes(v, 100);
        Thread.interrupted(); // the naive engine's later ops may have interrupted this thread again
    }

    @Test
    void pushesRacingTheDeletionOfTheirVariableEitherRunBeforeItOrAreRefused() throws Exception {
        for (int round = 0; round < 20; round++) {
            VarHandle x = engine.newVariable("x");
            VarHandle doomed = engine.newVariable("doomed");
            int attempts = 200;
            AtomicInteger accepted = new AtomicInteger();
            AtomicInteger refused = new AtomicInteger();
            AtomicInteger ran = new AtomicInteger();
            AtomicInteger ranWhenDeleted = new AtomicInteger(-1);
            AtomicReference<Throwable> unexpected = new AtomicReference<>();
            CountDownLatch started = new CountDownLatch(1);
            Thread pusher = new Thread(() -> {
                for (int i = 0; i < attempts; i++) {
                    if (i == attempts / 4) {
                        started.countDown();
                    }
                    try {
                        // x is registered before doomed: a deletion in between cancels the push half-way.
                        engine.pushSync(ctx -> ran.incrementAndGet(), opContext(), List.of(), List.of(x, doomed),
                                FnProperty.NORMAL, 0, "writer-" + i);
                        accepted.incrementAndGet();
                    } catch (IllegalStateException e) {
                        if (!e.getMessage().contains("doomed") || !e.getMessage().contains("deleted")) {
                            unexpected.compareAndSet(null, e);
                        }
                        refused.incrementAndGet();
                    } catch (Throwable t) {
                        unexpected.compareAndSet(null, t);
                    }
                }
                started.countDown();
            }, "racing-pusher");
            pusher.start();
            assertTrue(started.await(BOUND.toSeconds(), TimeUnit.SECONDS));
            engine.deleteVariable(ctx -> ranWhenDeleted.set(ran.get()), opContext(), doomed);
            joinBounded(pusher);
            engine.waitForAll(BOUND);
            assertEquals(null, unexpected.get());
            assertEquals(attempts, accepted.get() + refused.get(), "every push either ran or was refused");
            assertEquals(accepted.get(), ran.get(), "every accepted push ran once, no refused one ran");
            assertEquals(accepted.get(), ranWhenDeleted.get(), "the deletion ran after every accepted push");
            assertEquals(accepted.get(), x.version(), "a refused push does not count as a write of x");
            engineStillServes(x, 20);
        }
    }

    // ---- many faults at once ------------------------------------------------------------------------

    @Test
    void randomFaultsFromConcurrentPushersReachTheirOwnChainOnly() throws Exception {
        int chains = 16;
        int opsPerChain = 60;
        int pushers = 2;
        VarHandle[] vars = new VarHandle[chains];
        for (int c = 0; c < chains; c++) {
            vars[c] = engine.newVariable("chain-" + c);
        }
        AtomicIntegerArray runs = new AtomicIntegerArray(chains * opsPerChain);
        Throwable[] firstFault = new Throwable[chains];
        int[] firstFaultAt = new int[chains];
        Arrays.fill(firstFaultAt, -1);
        // The plan is drawn up front, so the oracle does not depend on how the pushes interleave.
        Throwable[][] plan = new Throwable[chains][opsPerChain];
        Random rnd = new Random(8);
        for (int c = 0; c < chains; c++) {
            for (int k = 0; k < opsPerChain; k++) {
                if (rnd.nextInt(40) == 0) {
                    plan[c][k] = switch (rnd.nextInt(5)) {
                        case 0 -> new IllegalStateException("fault " + c + "/" + k);
                        case 1 -> new IOException("fault " + c + "/" + k);
                        case 2 -> new AssertionError("fault " + c + "/" + k);
                        case 3 -> new RawThrowable("fault " + c + "/" + k);
                        default -> new OutOfMemoryError("fault " + c + "/" + k);
                    };
                    if (firstFaultAt[c] < 0) {
                        firstFaultAt[c] = k;
                        firstFault[c] = plan[c][k];
                    }
                }
            }
        }
        CyclicBarrier start = new CyclicBarrier(pushers);
        AtomicReference<Throwable> pusherError = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < pushers; p++) {
            int me = p;
            Thread t = new Thread(() -> {
                try {
                    start.await(BOUND.toSeconds(), TimeUnit.SECONDS);
                    for (int k = 0; k < opsPerChain; k++) {
                        for (int c = me; c < chains; c += pushers) {
                            int slot = c * opsPerChain + k;
                            Throwable fault = plan[c][k];
                            if (fault != null && k % 2 == 0) {
                                engine.pushAsync((ctx, done) -> {
                                    runs.incrementAndGet(slot);
                                    new Thread(() -> done.fail(fault), "foreign-failer").start();
                                }, Context.cpu(), List.of(), List.of(vars[c]), FnProperty.ASYNC, 0, "op-" + c + "-" + k);
                            } else {
                                engine.pushSync(ctx -> {
                                    runs.incrementAndGet(slot);
                                    if (fault != null) {
                                        throw sneakyThrow(fault);
                                    }
                                }, opContext(), List.of(), List.of(vars[c]), FnProperty.NORMAL, 0, "op-" + c + "-" + k);
                            }
                        }
                    }
                } catch (Throwable t2) {
                    pusherError.set(t2);
                }
            }, "fault-pusher-" + p);
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            joinBounded(t);
        }
        assertEquals(null, pusherError.get(), "a push threw");
        for (int c = 0; c < chains; c++) {
            int c2 = c;
            if (firstFault[c] == null) {
                assertDoesNotThrow(() -> engine.waitForVar(vars[c2], BOUND), "chain " + c + " had no fault");
            } else {
                EngineException e = assertThrows(EngineException.class, () -> engine.waitForVar(vars[c2], BOUND));
                assertSame(firstFault[c], e.getCause(), "chain " + c + " reports its first fault");
                assertTrue(e.getMessage().contains("op-" + c + "-" + firstFaultAt[c]), e.getMessage());
            }
            for (int k = 0; k < opsPerChain; k++) {
                int expected = firstFaultAt[c] < 0 || k <= firstFaultAt[c] ? 1 : 0;
                assertEquals(expected, runs.get(c * opsPerChain + k),
                        "op " + k + " of chain " + c + " (first fault at " + firstFaultAt[c] + ")");
            }
            assertEquals(opsPerChain, vars[c].version(), "every write counts, skipped ones included");
        }
        assertDoesNotThrow(() -> engine.waitForAll(BOUND), "every failure was reported by its chain's wait");
        engineStillServes(vars[0], 50);
    }
}
