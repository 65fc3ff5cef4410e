package org.depengine.benchmarks;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import org.depengine.benchmarks.contender.Contender;
import org.depengine.benchmarks.workload.OpBody;
import org.depengine.benchmarks.workload.OpList;
import org.depengine.benchmarks.workload.Workload;
import org.depengine.benchmarks.workload.Workloads;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What a push costs the pushing thread, and how long an idle engine takes to start an op.
 *
 * <ul>
 *   <li>{@code push}: ns per push of {@value Workloads#PUSHES} ops into a contender whose workers are
 *   all blocked (one op per worker waits on a latch, released after the timed pushes), so nothing
 *   runs while the pushes are timed: {@code independent} ops go to the ready queue, {@code dependent}
 *   ones queue behind a blocker's variable. The naive engine runs ops on the pusher, so it has no
 *   push-only cost and is left out. {@code perdevice+builder} is perdevice pushed through the op
 *   builder ({@code engine.op(name).reads(..).writes(..).on(ctx).property(p).run(fn)}), beside the
 *   {@code pushSync} overload.</li>
 *   <li>{@code latency}: from push to the op's first instruction, on an idle contender ({@code hot}:
 *   right after the previous op; {@code parked}: 2 ms later, when workers have gone to sleep).</li>
 * </ul>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(2)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class PushCost {
    private static final long PARKED_PAUSE_MILLIS = 2;

    /** Pushes into blocked workers; the blockers are pushed and released outside the timed region. */
    @State(Scope.Benchmark)
    public abstract static class Blocked extends TrialState {
        @Param({"independent", "dependent"})
        public String ops;
        private volatile CountDownLatch started;
        private volatile CountDownLatch release;
        private int blockers;

        abstract String contender();

        @Setup(Level.Trial)
        public void open() {
            blockers = Runtime.getRuntime().availableProcessors(); // every contender has one worker per core
            trial = Trial.open(Workload.custom(Workloads.pushCost(ops, blockers), w -> blockingBody(w)), contender());
        }

        private OpBody blockingBody(Workload w) {
            OpList list = w.ops();
            return (op, stream) -> {
                if (list.tag(op) == Workloads.BLOCKER) {
                    started.countDown();
                    awaitUninterruptibly(release);
                }
                w.effects().apply(op);
            };
        }

        @Setup(Level.Invocation)
        public void blockWorkers() throws InterruptedException {
            started = new CountDownLatch(blockers);
            release = new CountDownLatch(1);
            Contender c = trial.contender();
            c.reset();
            c.submit(0, blockers);
            if (!started.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException(c.name() + ": only " + (blockers - started.getCount()) + " of "
                        + blockers + " blockers started within 30 s; does it have one worker per core?");
            }
        }

        /** The timed part. */
        void pushAll() {
            trial.contender().submit(blockers, blockers + Workloads.PUSHES);
        }

        @TearDown(Level.Invocation)
        public void releaseWorkers() {
            release.countDown();
            trial.contender().awaitAll();
            trial.countRun();
        }
    }

    /** Engines with threads of their own; {@code perdevice+builder} pushes through {@code engine.op(...)}. */
    @State(Scope.Benchmark)
    public static class BlockedEngine extends Blocked {
        @Param({"pooled", "perdevice", "perdevice+builder"})
        public String engine;

        @Override
        String contender() {
            return engine;
        }
    }

    /** The pool baselines. */
    @State(Scope.Benchmark)
    public static class BlockedBaseline extends Blocked {
        @Param({"fjp", "cf"})
        public String baseline;

        @Override
        String contender() {
            return baseline;
        }
    }

    /** One op on an idle contender; the op's first action raises a flag the caller spins on. */
    @State(Scope.Benchmark)
    public abstract static class Idle extends TrialState {
        @Param({"hot", "parked"})
        public String idle;
        private volatile boolean running;

        abstract String contender();

        @Setup(Level.Trial)
        public void open() {
            if (!idle.equals("hot") && !idle.equals("parked")) {
                throw new IllegalArgumentException("idle must be hot or parked, got '" + idle + "'");
            }
            trial = Trial.open(Workload.custom(Workloads.single(), w -> (op, stream) -> {
                running = true;
                w.effects().apply(op);
            }), contender());
        }

        @Setup(Level.Invocation)
        public void prepare() {
            running = false;
            trial.contender().reset();
        }

        /** The timed part: push, then spin until the op runs. */
        void pushAndAwaitStart() {
            trial.contender().submit(0, 1);
            while (!running) {
                Thread.onSpinWait();
            }
        }

        @TearDown(Level.Invocation)
        public void finish() throws InterruptedException {
            trial.contender().awaitAll();
            trial.countRun();
            if (idle.equals("parked")) {
                Thread.sleep(PARKED_PAUSE_MILLIS); // outside the timed region: let the workers go to sleep
            }
        }
    }

    /** Every engine (the naive one runs the op inside the push). */
    @State(Scope.Benchmark)
    public static class IdleEngine extends Idle {
        @Param({"naive", "pooled", "perdevice"})
        public String engine;

        @Override
        String contender() {
            return engine;
        }
    }

    /** The pool baselines. */
    @State(Scope.Benchmark)
    public static class IdleBaseline extends Idle {
        @Param({"fjp", "cf"})
        public String baseline;

        @Override
        String contender() {
            return baseline;
        }
    }

    @Benchmark
    @OperationsPerInvocation(Workloads.PUSHES)
    public void pushEngine(BlockedEngine s) {
        s.pushAll();
    }

    @Benchmark
    @OperationsPerInvocation(Workloads.PUSHES)
    public void pushBaseline(BlockedBaseline s) {
        s.pushAll();
    }

    @Benchmark
    public void latencyEngine(IdleEngine s) {
        s.pushAndAwaitStart();
    }

    @Benchmark
    public void latencyBaseline(IdleBaseline s) {
        s.pushAndAwaitStart();
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        boolean interrupted = false;
        // A managed block: inside a ForkJoinPool (the fjp and cf baselines) it tells the pool that this
        // worker blocks, so a second blocker is not left queued behind it (seen with 2 workers: the
        // pool did not wake its other worker for 30 s). Elsewhere it simply waits.
        ForkJoinPool.ManagedBlocker blocker = new ForkJoinPool.ManagedBlocker() {
            @Override
            public boolean block() throws InterruptedException {
                latch.await();
                return true;
            }

            @Override
            public boolean isReleasable() {
                return latch.getCount() == 0;
            }
        };
        while (true) {
            try {
                ForkJoinPool.managedBlock(blocker);
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
