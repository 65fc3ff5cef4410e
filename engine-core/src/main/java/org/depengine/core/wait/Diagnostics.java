package org.depengine.core.wait;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import org.depengine.api.EngineDiagnostics;
import org.depengine.api.EngineDiagnostics.OpState;
import org.depengine.api.EngineDiagnostics.PendingOp;
import org.depengine.core.exec.EngineThread;
import org.depengine.core.tracker.FenceState;
import org.depengine.core.tracker.OpBlock;
import org.depengine.core.tracker.Var;
import org.depengine.core.tracker.VarSnapshot;

/**
 * What an engine keeps so that its {@code diagnostics()} can say what is pending without a
 * cost per op on the hot path: a weak registry of variables (every op that waits or holds a variable is
 * in that variable's queue), the ops that left their thread unfinished (async ops awaiting their
 * callback, device ops awaiting their device), and the threads blocked in waits. Running ops are found
 * from the engine's threads when a snapshot is taken.
 */
public final class Diagnostics {
    private final Object engine;
    private final String name;
    private final Map<Var, Boolean> vars = Collections.synchronizedMap(new WeakHashMap<>());
    private final Map<OpBlock, Long> inFlight = new ConcurrentHashMap<>(); // op -> since (System.nanoTime())
    private final Map<Thread, Wait> waiters = new ConcurrentHashMap<>();

    private record Wait(String call, long since) {
    }

    /** The registry of {@code engine} (the owner of its threads), named {@code name}. */
    public Diagnostics(Object engine, String name) {
        this.engine = engine;
        this.name = name;
    }

    /** Registers a new variable (weakly). */
    public Var track(Var v) {
        vars.put(v, Boolean.TRUE);
        return v;
    }

    /**
     * The op's function returned and the op is not complete: it waits for a callback, or for its device
     * if {@code launched}.
     */
    public void inFlight(OpBlock op, boolean launched) {
        inFlight.put(op, System.nanoTime());
        if (!op.markInFlight(launched)) {
            inFlight.remove(op); // it completed meanwhile, before the flag: its completion does not remove it
        }
    }

    /** An in-flight op completed. */
    public void landed(OpBlock op) {
        inFlight.remove(op);
    }

    void waitStarted(String call) {
        waiters.put(Thread.currentThread(), new Wait(call, System.nanoTime()));
    }

    void waitEnded() {
        waiters.remove(Thread.currentThread());
    }

    /** The threads blocked in waits now. */
    public int waiting() {
        return waiters.size();
    }

    /** What is pending now, with {@code counters}. */
    public EngineDiagnostics snapshot(java.util.function.LongSupplier pendingCount, Map<String, Long> counters) {
        long now = System.nanoTime();
        Map<OpBlock, List<String>> found = new IdentityHashMap<>();
        Map<OpBlock, String> threads = new IdentityHashMap<>();
        // Running ops of this engine's threads.
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t instanceof EngineThread et && et.engine() == engine) {
                OpBlock op = et.currentOp;
                if (op != null) {
                    found.putIfAbsent(op, new ArrayList<>());
                    threads.put(op, t.getName());
                }
            }
        }
        for (OpBlock op : inFlight.keySet()) {
            found.putIfAbsent(op, new ArrayList<>());
            FenceState f = op.fence();
            if (f != null) {
                for (OpBlock deferred : f.deferred()) { // released by their variables: in no queue any more
                    found.putIfAbsent(deferred, new ArrayList<>());
                }
            }
        }
        List<Var> live;
        synchronized (vars) {
            live = new ArrayList<>(vars.keySet());
        }
        for (Var v : live) {
            VarSnapshot s = v.snapshot();
            List<OpBlock> q = s.queue();
            for (int i = 0; i < q.size(); i++) {
                OpBlock op = q.get(i);
                List<String> why = found.computeIfAbsent(op, o -> new ArrayList<>());
                if (op.isStarted() || op.waitCount() == 0) {
                    continue; // released by this variable
                }
                if (i > 0) {
                    OpBlock head = q.get(0);
                    why.add(v + ": write by " + describe(head));
                } else if (s.runningReaders() > 0) {
                    why.add(v + ": " + s.runningReaders() + " running read(s)" + readersOf(v, found.keySet()));
                }
            }
            if (s.deviceWriter() != null) {
                found.putIfAbsent(s.deviceWriter(), new ArrayList<>());
            }
        }
        List<PendingOp> ops = new ArrayList<>();
        for (Map.Entry<OpBlock, List<String>> e : found.entrySet()) {
            OpBlock op = e.getKey();
            if (op.isFinished()) {
                continue;
            }
            OpState state = op.state();
            Long since = state == OpState.AWAITING_CALLBACK || state == OpState.ON_DEVICE ? inFlight.get(op) : null;
            Duration away = since == null ? null : Duration.ofNanos(now - since);
            String thread = state != OpState.RUNNING ? null
                    : threads.getOrDefault(op, op.runner() == null ? null : op.runner().getName());
            List<String> why = state == OpState.WAITING ? e.getValue()
                    : state == OpState.DEFERRED ? List.of("the device work of an op it depends on") : List.of();
            ops.add(new PendingOp(op.id(), op.name(), op.context(), op.property(), state, thread, away, why));
        }
        ops.sort(Comparator.comparingLong(PendingOp::id));
        List<EngineDiagnostics.Waiter> ws = new ArrayList<>();
        for (Map.Entry<Thread, Wait> e : waiters.entrySet()) {
            ws.add(new EngineDiagnostics.Waiter(e.getKey().getName(), e.getValue().call(),
                    Duration.ofNanos(now - e.getValue().since())));
        }
        // Counted last: an op found in the walk was pushed before this read, so the count covers it.
        return new EngineDiagnostics(name, Instant.now(), pendingCount.getAsLong(), ops, ws, counters);
    }

    private static String describe(OpBlock op) {
        return "op '" + op.name() + "' #" + op.id() + " (" + op.state() + ")";
    }

    private static String readersOf(Var v, Set<OpBlock> known) {
        List<String> names = new ArrayList<>();
        for (OpBlock op : known) {
            if (op.isStarted() && !op.isFinished() && op.reads().contains(v)) {
                names.add(describe(op));
            }
        }
        return names.isEmpty() ? "" : ": " + String.join(", ", names);
    }

}
