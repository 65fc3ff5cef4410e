package org.depengine.core.wait;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.LongAdder;
import org.depengine.api.EngineException;
import org.depengine.api.FnProperty;
import org.depengine.api.SyncFn;
import org.depengine.api.WaitTimeoutException;
import org.depengine.api.EngineDiagnostics;
import org.depengine.core.CoreSettings;
import org.depengine.core.exec.CurrentOp;
import org.depengine.core.tracker.Failure;
import org.depengine.core.tracker.OpDef;
import org.depengine.core.tracker.OpBlock;
import org.depengine.core.tracker.Var;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An engine's waits ({@code waitForVar}, {@code waitForAll}, their timeouts, {@code whenReady},
 * {@code whenAllDone}) and the failures they report, with the hang doctor that watches the blocking
 * ones.
 *
 * <p>A failure is recorded when its op completes ({@link FailureLedger}) and stays unreported until a wait throws it: a
 * {@code waitForVar} throws the failure its variable carries, a {@code waitForAll} the first unreported
 * one (later ones suppressed). A reported failure leaves every place that holds it at once, so that
 * nothing keeps its throwable. Thread-safe.
 *
 * <p><b>Hang doctor.</b> A wait that takes longer than {@code depengine.hangDoctorMs} milliseconds
 * (default 60000; 0 turns it off) logs the engine's diagnostics once, at
 * WARN, and goes on waiting.
 */
public final class Waits {
    private static final Logger LOG = LoggerFactory.getLogger(Waits.class);
    private static final SyncFn NOTHING = ctx -> { };
    private static final Var[] NO_VARS = new Var[0];

    private final Host engine;
    private final PendingOps pending;
    private final Diagnostics diag;
    private final int hangDoctorMs;
    private final FailureLedger failures;
    private final LongAdder hangReports = new LongAdder();

    /** What the waits need of their engine. */
    public interface Host {
        /** The engine (the owner of its ops and threads, for the refusal of a wait inside one). */
        Object owner();

        /** The engine's name, for messages. */
        String name();

        /** Pushes an internal wait op ({@link OpDef.Kind#WAIT}: never skipped, run inline, awaited by its pusher). */
        OpBlock submitWait(OpDef def);

        /** The engine's diagnostics now (for timeouts and the hang doctor). */
        EngineDiagnostics diagnostics();
    }

    /**
     * @param hangDoctorMs {@link CoreSettings#HANG_DOCTOR_MS}: the hang doctor's threshold, 0 for none
     */
    public Waits(Host engine, PendingOps pending, Diagnostics diag, FailureLedger failures, int hangDoctorMs) {
        this.engine = engine;
        this.pending = pending;
        this.diag = diag;
        this.failures = failures;
        this.hangDoctorMs = hangDoctorMs;
    }

    /** The {@link System#nanoTime()} deadline {@code timeout} from now, saturated; never {@link Long#MAX_VALUE}. */
    public static long deadline(Duration timeout) {
        long now = System.nanoTime();
        long d;
        try {
            d = Math.addExact(now, timeout.toNanos());
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE - 1;
        }
        return d == Long.MAX_VALUE ? d - 1 : d;
    }

    /**
     * Blocks until the writes of {@code v} pushed before now are done, then throws the failure it carries.
     *
     * @param deadline a {@link System#nanoTime()} deadline, or {@link Long#MAX_VALUE} for none
     * @param timeout what the deadline was made from, for the message; null for none
     */
    public void waitForVar(Var v, long deadline, Duration timeout) {
        v.requireLive("waitForVar");
        CurrentOp.refuseBlockingCall(engine.owner(), engine.name(), "waitForVar(" + v.name() + ")");
        if (v.hasPendingWrite()) {
            OpDef def = new OpDef(engine.owner(), NOTHING, v.alone(), NO_VARS, FnProperty.NO_SKIP,
                    "waitForVar(" + v.name() + ")", OpDef.Kind.WAIT);
            OpBlock waitOp = engine.submitWait(def);
            boolean done;
            try {
                done = awaitWatched("waitForVar(" + v + ")", waitOp::awaitFinished, deadline);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new EngineException("interrupted while waiting for " + v + " in waitForVar", e);
            }
            if (!done) {
                OpBlock writer = v.pendingWriter();
                throw new WaitTimeoutException("waitForVar(" + v.name() + ") timed out after " + timeout
                        + (writer == null ? "" : ": still waiting for op '" + writer.name() + "' that writes it")
                        + "; " + engine.diagnostics().report(20));
            }
        }
        EngineException failure = reportedFailure(v);
        if (failure != null) {
            throw failure;
        }
    }

    /** Blocks until the ops pushed before now are finished, then throws the first unreported failure. */
    public void waitForAll(long deadline, Duration timeout) {
        CurrentOp.refuseBlockingCall(engine.owner(), engine.name(), "waitForAll()");
        PendingOps.Epoch sealed = pending.seal();
        boolean done;
        try {
            done = awaitWatched("waitForAll()", d -> PendingOps.await(sealed, d), deadline);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EngineException("interrupted while waiting in waitForAll", e);
        }
        if (!done) {
            throw new WaitTimeoutException("waitForAll() timed out after " + timeout + "; " + engine.diagnostics().report(20));
        }
        EngineException first = firstUnreportedFailure();
        if (first != null) {
            throw first;
        }
    }

    /**
     * For {@code close}: waits, uninterruptibly, until every op pushed so far is finished, and logs the
     * failures nobody was told about.
     *
     * @return whether the thread was interrupted meanwhile (the caller restores the status)
     */
    public boolean drainForClose() {
        boolean interrupted = false;
        PendingOps.Epoch sealed = pending.seal();
        while (true) {
            try {
                PendingOps.await(sealed, Long.MAX_VALUE);
                break;
            } catch (InterruptedException e) {
                interrupted = true; // finish closing; the caller restores the status
            }
        }
        for (Failure f : failures.takeAll()) {
            if (f.markReported()) {
                LOG.warn("engine '{}' closed with an unreported failure: {}", engine.name(), f, f.error());
            }
        }
        return interrupted;
    }

    /** Waits for {@code latch} without giving up on an interrupt, restoring the status afterwards. */
    public static void awaitUninterruptibly(CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** {@code waitForVar} without blocking: the future completes (off the engine's threads) when it would return. */
    public CompletableFuture<Void> whenReady(Var v) {
        v.requireLive("whenReady");
        CompletableFuture<Void> future = new CompletableFuture<>();
        // The same wake-up op as waitForVar's: it runs once the writers pushed before now completed,
        // inline on the thread that completed the last one; the failure check is waitForVar's too.
        SyncFn check = ctx -> completeOffEngine(future, reportedFailure(v));
        OpDef def = new OpDef(engine.owner(), check, v.alone(), NO_VARS, FnProperty.NO_SKIP,
                "whenReady(" + v.name() + ")", OpDef.Kind.WAIT);
        engine.submitWait(def);
        return future;
    }

    /** {@code waitForAll} without blocking. */
    public CompletableFuture<Void> whenAllDone() {
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
        failures.remove(f); // reported: nothing may keep it any more (variables drop it when they see it)
        v.dropReportedFailure(f);
        return failureException(f);
    }

    /** As the waits report them: the first unreported failure, later ones suppressed; null if none. */
    private EngineException firstUnreportedFailure() {
        EngineException first = null;
        for (Failure f : failures.takeAll()) {
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

    private static EngineException failureException(Failure f) {
        return new EngineException("op '" + f.opName() + "' failed: " + f.error(), f.error());
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

    /** How many times the hang doctor reported (see EngineDiagnostics#counters). */
    public long hangReports() {
        return hangReports.sum();
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
                            + "threshold, 0 turns the report off.)", call, hangDoctorMs, engine.diagnostics().report(),
                            CoreSettings.HANG_DOCTOR_MS.key());
                    hangReports.increment();
                }
            }
            return wait.until(deadline);
        } finally {
            diag.waitEnded();
        }
    }
}
