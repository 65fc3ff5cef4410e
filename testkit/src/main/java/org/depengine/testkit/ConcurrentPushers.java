package org.depengine.testkit;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.FnProperty;
import org.depengine.api.VarHandle;

/**
 * A randomized workload pushed by several threads at once, with a checker for the engine's contract:
 * the run must be serialisable in an order that keeps every thread's push order, and its result must
 * equal a serial replay in that order (exactly).
 *
 * <p>Each op logs itself, when it starts, into the log of every variable it touches. From the logs
 * the checker builds the precedence graph (write → later reads and writes, read → next write) plus
 * each thread's program order, sorts it topologically (a cycle is a violation), and replays the ops in
 * that order.
 */
public final class ConcurrentPushers {
    /** One op of the workload. */
    static final class Op {
        final int id;
        final int thread;
        final int[] reads;
        final int write;
        final FnProperty prop;
        final int priority;
        final Context ctx;

        Op(int id, int thread, int[] reads, int write, FnProperty prop, int priority, Context ctx) {
            this.id = id;
            this.thread = thread;
            this.reads = reads;
            this.write = write;
            this.prop = prop;
            this.priority = priority;
            this.ctx = ctx;
        }

        void apply(double[] data) {
            double sum = id; // makes every op's effect distinct
            for (int r : reads) {
                sum += data[r];
            }
            data[write] = sum / (reads.length + 1);
        }
    }

    private final List<Op>[] perThread;
    private final int vars;
    private final int opCount;

    @SuppressWarnings({"unchecked", "rawtypes"}) // an array of generic lists can only be made raw
    private ConcurrentPushers(int threads, int vars, int opsPerThread, long seed, List<Context> contexts,
                              List<FnProperty> props) {
        this.vars = vars;
        this.perThread = new List[threads];
        Random rnd = new Random(seed);
        int id = 0;
        for (int t = 0; t < threads; t++) {
            perThread[t] = new ArrayList<>();
            for (int i = 0; i < opsPerThread; i++) {
                int write = rnd.nextInt(vars);
                int n = rnd.nextInt(4);
                int[] reads = new int[n];
                int k = 0;
                for (int j = 0; j < n; j++) {
                    int r = rnd.nextInt(vars);
                    if (r != write) {
                        reads[k++] = r;
                    }
                }
                perThread[t].add(new Op(id++, t, Arrays.copyOf(reads, k), write, props.get(rnd.nextInt(props.size())),
                        rnd.nextInt(5), contexts.get(rnd.nextInt(contexts.size()))));
            }
        }
        this.opCount = id;
    }

    /**
     * Generates a workload.
     *
     * @param props the properties ops are drawn from ({@link FnProperty#ASYNC} ops complete from a
     *     helper thread)
     */
    public static ConcurrentPushers generate(int threads, int vars, int opsPerThread, long seed, List<Context> contexts,
                                             List<FnProperty> props) {
        return new ConcurrentPushers(threads, vars, opsPerThread, seed, contexts, props);
    }

    /**
     * Pushes the workload from its threads at once, waits, and checks it.
     *
     * @throws AssertionError describing the first violation
     */
    public void runAndCheck(Engine engine) throws InterruptedException {
        double[] data = new double[vars];
        Arrays.fill(data, 1.0);
        List<int[]>[] logs = newLogs(); // per var: {opId, isWrite}
        VarHandle[] vs = new VarHandle[vars];
        for (int i = 0; i < vars; i++) {
            vs[i] = engine.newVariable("v" + i);
        }
        CountDownLatch start = new CountDownLatch(1);
        AtomicReference<Throwable> pusherError = new AtomicReference<>();
        Thread[] pushers = new Thread[perThread.length];
        for (int t = 0; t < pushers.length; t++) {
            List<Op> mine = perThread[t];
            pushers[t] = new Thread(() -> {
                try {
                    start.await();
                    for (Op op : mine) {
                        push(engine, op, vs, data, logs);
                    }
                } catch (Throwable e) {
                    pusherError.compareAndSet(null, e);
                }
            }, "pusher-" + t);
            pushers[t].start();
        }
        start.countDown();
        for (Thread p : pushers) {
            p.join(120_000);
            if (p.isAlive()) {
                throw new AssertionError(p.getName() + " is still blocked in a push after 2 minutes (a lost op or a deadlock)");
            }
        }
        if (pusherError.get() != null) {
            throw new AssertionError("a pusher failed", pusherError.get());
        }
        engine.waitForAll(Duration.ofMinutes(2)); // a lost op fails the test instead of hanging it
        check(data, logs);
    }

    @SuppressWarnings({"unchecked", "rawtypes"}) // an array of generic lists can only be made raw
    private List<int[]>[] newLogs() {
        List<int[]>[] logs = new List[vars];
        for (int i = 0; i < vars; i++) {
            logs[i] = new ArrayList<>();
        }
        return logs;
    }

    private static void log(List<int[]>[] logs, Op op) {
        for (int r : op.reads) {
            synchronized (logs[r]) {
                logs[r].add(new int[] {op.id, 0});
            }
        }
        synchronized (logs[op.write]) {
            logs[op.write].add(new int[] {op.id, 1});
        }
    }

    private static void push(Engine engine, Op op, VarHandle[] vs, double[] data, List<int[]>[] logs) {
        List<VarHandle> reads = new ArrayList<>(op.reads.length);
        for (int r : op.reads) {
            reads.add(vs[r]);
        }
        List<VarHandle> writes = List.of(vs[op.write]);
        String name = "op" + op.id;
        if (op.prop == FnProperty.ASYNC) {
            engine.pushAsync((ctx, done) -> {
                log(logs, op);
                op.apply(data);
                CompletableFuture.runAsync(done::complete); // completes from a foreign thread
            }, op.ctx, reads, writes, op.prop, op.priority, name);
        } else {
            engine.pushSync(ctx -> {
                log(logs, op);
                op.apply(data);
            }, op.ctx, reads, writes, op.prop, op.priority, name);
        }
    }

    private void check(double[] data, List<int[]>[] logs) {
        Op[] byId = new Op[opCount];
        for (List<Op> l : perThread) {
            for (Op op : l) {
                byId[op.id] = op;
            }
        }
        List<Integer>[] succ = newSucc();
        int[] indeg = new int[opCount];
        for (int v = 0; v < vars; v++) {
            int lastWrite = -1;
            List<Integer> readsSince = new ArrayList<>();
            for (int[] e : logs[v]) {
                int op = e[0];
                if (e[1] == 0) {
                    edge(succ, indeg, lastWrite, op);
                    readsSince.add(op);
                } else {
                    edge(succ, indeg, lastWrite, op);
                    for (int r : readsSince) {
                        edge(succ, indeg, r, op);
                    }
                    readsSince.clear();
                    lastWrite = op;
                }
            }
        }
        for (List<Op> l : perThread) {
            for (int i = 1; i < l.size(); i++) {
                edge(succ, indeg, l.get(i - 1).id, l.get(i).id);
            }
        }
        int total = 0;
        for (List<int[]> log : logs) {
            for (int[] e : log) {
                total += e[1];
            }
        }
        if (total != opCount) {
            throw new AssertionError(opCount + " ops pushed but " + total + " ran (lost or run twice)");
        }
        ArrayDeque<Integer> queue = new ArrayDeque<>();
        for (int i = 0; i < opCount; i++) {
            if (indeg[i] == 0) {
                queue.add(i);
            }
        }
        double[] replay = new double[vars];
        Arrays.fill(replay, 1.0);
        int done = 0;
        while (!queue.isEmpty()) {
            int op = queue.poll();
            byId[op].apply(replay);
            done++;
            for (int s : succ[op]) {
                if (--indeg[s] == 0) {
                    queue.add(s);
                }
            }
        }
        if (done != opCount) {
            throw new AssertionError("not serialisable: the order the ops ran in, with each thread's push order, has a cycle ("
                    + (opCount - done) + " ops on it)");
        }
        if (!Arrays.equals(replay, data)) {
            throw new AssertionError("the result differs from a serial replay in a serialisation order");
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"}) // an array of generic lists can only be made raw
    private List<Integer>[] newSucc() {
        List<Integer>[] succ = new List[opCount];
        for (int i = 0; i < opCount; i++) {
            succ[i] = new ArrayList<>();
        }
        return succ;
    }

    private static void edge(List<Integer>[] succ, int[] indeg, int from, int to) {
        if (from >= 0 && from != to) {
            succ[from].add(to);
            indeg[to]++;
        }
    }
}
