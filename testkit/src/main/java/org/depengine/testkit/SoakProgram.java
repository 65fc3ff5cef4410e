package org.depengine.testkit;

import java.lang.management.ManagementFactory;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.depengine.api.AsyncFn;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.EngineException;
import org.depengine.api.FnProperty;
import org.depengine.api.OprHandle;
import org.depengine.api.SyncFn;
import org.depengine.api.VarHandle;
import org.depengine.api.WaitTimeoutException;
import org.depengine.api.spi.EngineConfig;

/**
 * The soak run of {@link LeakConformance}, as a program so that it gets a JVM (and a small heap) of
 * its own: pushes a long mixed workload through one engine (chains, variable and operator churn,
 * async ops completed on a foreign thread, failing ops, two CPU devices) and, at checkpoints,
 * measures the heap used after a full GC and how many sampled objects of finished work are still
 * reachable. It prints one {@code checkpoint} line per checkpoint and a final {@code result} line of
 * {@code key=value} pairs, and exits 0 (a program, so it prints).
 *
 * <p>Arguments: {@code engineName ops checkpoints [key=value settings...]}.
 */
public final class SoakProgram {
    private static final int RING = 32;
    private static final int SYNC_EVERY = 8_192;  // a waitForAll every so many ops bounds the backlog
    private static final int SAMPLE_EVERY = 97;   // 1 in this many churned objects is tracked weakly

    private final Engine engine;
    private final ExecutorService completer = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "soak-foreign-completer");
        t.setDaemon(true);
        return t;
    });
    private final AtomicLong ran = new AtomicLong();
    private long expected;
    private long failuresReported;
    private long expectedFailures;
    private final VarHandle[] ring = new VarHandle[RING];
    /** Weak references to finished work, by the checkpoint segment that made them. */
    private final List<List<WeakReference<Object>>> tracked = new ArrayList<>();

    private SoakProgram(Engine engine) {
        this.engine = engine;
        for (int i = 0; i < RING; i++) {
            ring[i] = engine.newVariable("ring-" + i);
        }
    }

    /** Runs the soak; see the class comment for the arguments and the output. */
    public static void main(String[] args) throws Exception {
        String name = args[0];
        long ops = Long.parseLong(args[1]);
        int checkpoints = Integer.parseInt(args[2]);
        Map<String, String> settings = new LinkedHashMap<>();
        for (int i = 3; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            settings.put(args[i].substring(0, eq), args[i].substring(eq + 1));
        }
        long threadsBefore = engineThreads();
        long start = System.nanoTime();
        Map<String, Object> result = new LinkedHashMap<>();
        long threadsDuring;
        try (Engine engine = Engine.create(name, EngineConfig.of(settings))) {
            SoakProgram soak = new SoakProgram(engine);
            soak.run(ops, checkpoints, result);
            threadsDuring = engineThreads();
            soak.completer.shutdown();
            soak.completer.awaitTermination(60, TimeUnit.SECONDS);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        result.put("seconds", String.format(Locale.ROOT, "%.1f", seconds));
        result.put("threadsBefore", threadsBefore);
        result.put("threadsDuring", threadsDuring);
        result.put("threadsAfter", engineThreadsAfterJoin());
        result.put("maxHeap", Runtime.getRuntime().maxMemory());
        StringBuilder line = new StringBuilder("result");
        result.forEach((k, v) -> line.append(' ').append(k).append('=').append(v));
        System.out.println(line);
    }

    private void run(long ops, int checkpoints, Map<String, Object> result) {
        long every = Math.max(1, ops / checkpoints);
        long firstHeap = -1;
        long maxHeap = 0;
        long lastHeap = 0;
        long oldSurvivors = 0;
        tracked.add(new ArrayList<>());
        for (long i = 0; i < ops; i++) {
            step(i);
            if ((i + 1) % SYNC_EVERY == 0) {
                sync();
            }
            if ((i + 1) % every == 0) {
                sync();
                long heap = heapAfterGc();
                // Objects of segments before the last one must all be gone by now.
                long survivors = 0;
                for (int s = 0; s < tracked.size() - 1; s++) {
                    survivors += tracked.get(s).stream().filter(r -> r.get() != null).count();
                }
                long sampled = tracked.get(tracked.size() - 1).size();
                // Keep only the last segment's references, so the program's own bookkeeping does not grow.
                List<WeakReference<Object>> last = tracked.get(tracked.size() - 1);
                tracked.clear();
                tracked.add(last);
                tracked.add(new ArrayList<>());
                if (firstHeap < 0) {
                    firstHeap = heap;
                }
                maxHeap = Math.max(maxHeap, heap);
                lastHeap = heap;
                oldSurvivors = Math.max(oldSurvivors, survivors);
                System.out.println("checkpoint ops=" + (i + 1) + " heapUsedAfterGc=" + heap + " sampledThisSegment=" + sampled
                        + " survivorsFromOlderSegments=" + survivors + " engineThreads=" + engineThreads());
            }
        }
        sync();
        result.put("ops", ops);
        result.put("ran", ran.get());
        result.put("expected", expected);
        result.put("failuresReported", failuresReported);
        result.put("expectedFailures", expectedFailures);
        result.put("heapFirst", firstHeap);
        result.put("heapMax", maxHeap);
        result.put("heapLast", lastHeap);
        result.put("oldSurvivorsMax", oldSurvivors);
    }

    private void track(Object o) {
        tracked.get(tracked.size() - 1).add(new WeakReference<>(o));
    }

    /** One unit of the mixed workload. */
    private void step(long i) {
        int k = (int) (i % 16);
        VarHandle w = ring[(int) (i % RING)];
        VarHandle r = ring[(int) ((i * 7 + 3) % RING)];
        if (r == w) {
            r = ring[(int) ((i + 1) % RING)];
        }
        switch (k) {
            case 10 -> { // variable churn: write, read, delete
                VarHandle t = engine.newVariable("tmp");
                engine.pushSync(ctx -> ran.incrementAndGet(), Context.cpu(), List.of(), List.of(t));
                engine.pushSync(ctx -> ran.incrementAndGet(), Context.cpu(), List.of(t), List.of(w));
                engine.deleteVariable(ctx -> ran.incrementAndGet(), Context.cpu(), t);
                expected += 3;
                if ((i / 16) % SAMPLE_EVERY == 0) {
                    track(t);
                }
            }
            case 11 -> { // async, completed on a foreign thread after the function returned
                engine.pushAsync((ctx, done) -> completer.execute(() -> {
                    ran.incrementAndGet();
                    done.complete();
                }), Context.cpu(), List.of(r), List.of(w), FnProperty.ASYNC, 0, "foreign");
                expected++;
            }
            case 12 -> { // operator churn
                VarHandle out = engine.newVariable("op-out");
                AsyncFn fn = (ctx, done) -> {
                    ran.incrementAndGet();
                    done.complete();
                };
                OprHandle op = engine.newOperator(fn, List.of(r), List.of(out), FnProperty.NORMAL, "churned-op");
                engine.push(op, Context.cpu(), 0, false);
                engine.push(op, Context.cpu(1), 0, false);
                engine.deleteOperator(op);
                engine.deleteVariable(ctx -> { }, Context.cpu(), out);
                expected += 2;
                if ((i / 16) % SAMPLE_EVERY == 0) {
                    track(op);
                    track(fn);
                }
            }
            case 13 -> { // a failing op on a variable of its own; the deletion still runs
                VarHandle f = engine.newVariable("fails");
                engine.pushSync(ctx -> {
                    ran.incrementAndGet();
                    throw new IllegalStateException("soak failure " + i);
                }, Context.cpu(), List.of(), List.of(f), FnProperty.NORMAL, 0, "failing");
                engine.deleteVariable(ctx -> ran.incrementAndGet(), Context.cpu(), f);
                expected += 2;
                expectedFailures++;
            }
            case 14 -> { // the second CPU device
                engine.pushSync(ctx -> ran.incrementAndGet(), Context.cpu(1), List.of(r), List.of(w));
                expected++;
            }
            case 15 -> { // a closure holding data, sampled weakly
                long[] payload = new long[32];
                SyncFn fn = ctx -> {
                    payload[0]++;
                    ran.incrementAndGet();
                };
                engine.pushSync(fn, Context.cpu(), List.of(r), List.of(w));
                expected++;
                if ((i / 16) % SAMPLE_EVERY == 0) {
                    track(fn);
                    track(payload);
                }
            }
            default -> {
                engine.pushSync(ctx -> ran.incrementAndGet(), Context.cpu(), List.of(r), List.of(w));
                expected++;
            }
        }
    }

    /** Waits for everything pushed; collects the failures the workload made on purpose. */
    private void sync() {
        try {
            engine.waitForAll(Duration.ofMinutes(5));
        } catch (WaitTimeoutException e) {
            throw e;
        } catch (EngineException e) {
            failuresReported += 1 + e.getSuppressed().length;
        }
    }

    /** Heap in use after full collections (two, each confirmed by a cleared sentinel). */
    private static long heapAfterGc() {
        for (int i = 0; i < 2; i++) {
            WeakReference<Object> sentinel = new WeakReference<>(new Object());
            for (int tries = 0; tries < 20 && sentinel.get() != null; tries++) {
                System.gc();
            }
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static long engineThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.isAlive() && t.getName().contains("depengine")).count();
    }

    private static long engineThreadsAfterJoin() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().contains("depengine")) {
                t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000L));
            }
        }
        return engineThreads();
    }
}
