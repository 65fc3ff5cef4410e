package org.depengine.examples;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.TimeUnit;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.FnProperty;
import org.depengine.api.VarHandle;
import org.depengine.api.device.Device;
import org.depengine.api.device.DeviceArray;
import org.depengine.api.device.Devices;
import org.depengine.api.device.primitive.Memcpy;
import org.depengine.kvstore.KVStore;
import org.depengine.kvstore.MembershipChange;
import org.depengine.kvstore.spi.Rounds;

/**
 * Which share of each batch this worker trains in an elastic job ({@code MultiDeviceTraining --elastic}),
 * agreed by every worker through the store, and the membership changes this worker was told of, printed.
 *
 * <p>An epoch's split is not read from {@link KVStore#rank()} and {@link KVStore#numWorkers()} at some
 * instant: each worker moves to a new view at its own instant, so two workers could split one batch two
 * ways. Instead, at the top of every epoch each worker pushes 1 to the key {@value #KEY} and waits for its
 * pull ({@link #agree}); the epoch's batches are split over the workers of the view that summed that round,
 * this worker taking the share of its rank in it. Every worker finds the same view: a round is summed over
 * one view for all (the old one before the key's {@link MembershipChange#firstRoundOf() first round} of the
 * new one, the new one from it on), and a worker is told of a view before any round of it completes there,
 * so by the time the pull completes this worker knows that view, and a view it learns of later starts
 * after the round. The round's sum, the number of workers summed, checks it. So the split of every epoch
 * follows from the printed changes; it is printed too (by the {@link Trainer}).
 *
 * <p>The workers are named by their rank at the job's start ({@code w0}, {@code w1}, ...), joiners by
 * the order they were admitted ({@code wN}, ...); a joiner, which does not know the names, calls the
 * workers of the view it joined {@code r0}, {@code r1}, .... Thread-safety: {@link #agree} from the
 * training loop's thread; the listener runs on the store's thread.
 */
final class WorkerShares {
    /** The key every worker pushes 1 to at the top of each epoch. */
    static final String KEY = "shares";

    /**
     * A view as this worker moved to it.
     *
     * @param epoch its number (-1: the view a joiner joined, whose number it is not told)
     * @param rank this worker's rank in it
     * @param workers its workers' names, in rank order
     * @param firstRoundOf per key, the first round summed over it (empty for the view at open)
     */
    record View(int epoch, int rank, List<String> workers, Map<String, Long> firstRoundOf) {
        int size() {
            return workers.size();
        }
    }

    private final Engine engine;
    private final KVStore kv;
    private final Memcpy memcpy;
    /** 1, what each worker pushes; never written after {@link #init}. */
    private final DeviceArray one;
    /** The round's sum, pulled. */
    private final DeviceArray sum;
    private final ByteBuffer read = ByteBuffer.allocateDirect(Float.BYTES).order(ByteOrder.nativeOrder());
    /** The views this worker moved to, in epoch order, from the one it opened the store in; guarded by this. */
    private final List<View> views = new ArrayList<>();
    /** The next joiner's number; guarded by this. */
    private int nextName;
    /** Whether a change this worker moved to admitted a worker; guarded by this. */
    private boolean arrived;
    /** The training epoch the loop is in, for the change lines. */
    private volatile int epoch;
    /** The period of the last push of {@value #KEY}, and its index in it (the loop's thread only). */
    private int period = -1;
    private long index;

    /**
     * Starts following the store's membership: call right after the store is opened.
     *
     * @param joined whether this worker joined a running job (its first view's workers are then unnamed)
     * @param host the CPU context of the key's arrays
     */
    WorkerShares(Engine engine, KVStore kv, Context host, boolean joined) {
        this.engine = engine;
        this.kv = kv;
        Device device = Devices.device(host);
        memcpy = device.requirePrimitive(Memcpy.class);
        one = new DeviceArray(device.allocate(Float.BYTES), engine.newVariable("one (shares)"));
        sum = new DeviceArray(device.allocate(Float.BYTES), engine.newVariable("workers summed (shares)"));
        List<String> names = new ArrayList<>();
        for (int r = 0; r < kv.numWorkers(); r++) {
            names.add((joined ? "r" : "w") + r);
        }
        synchronized (this) {
            views.add(new View(joined ? -1 : 0, kv.rank(), List.copyOf(names), Map.of()));
            nextName = names.size();
        }
        kv.onMembershipChange(this::changed);
    }

    /** Creates the key (every worker, in the same place among its inits). */
    void init() {
        ByteBuffer v = ByteBuffer.allocateDirect(Float.BYTES).order(ByteOrder.nativeOrder()).putFloat(0, 1f);
        engine.pushSync(rc -> memcpy.hostToDevice(rc.stream(), v.duplicate(), one.buffer(), one.offsetBytes()),
                one.context(), List.of(), List.of(one.var()), FnProperty.COPY_TO_DEVICE, 0, "shares = 1");
        kv.init(KEY, one);
    }

    /**
     * The view the batches of training epoch {@code trainingEpoch} are split over: pushes 1, waits for the
     * round's sum, and returns the view in force for that round.
     *
     * @throws IllegalStateException if the sum is not that view's number of workers (a defect)
     */
    View agree(int trainingEpoch) {
        epoch = trainingEpoch;
        int p = kv.period();
        index = p == period ? index + 1 : 1;
        period = p;
        long round = Rounds.of(p, index);
        kv.push(KEY, one, 1); // above the layers' priorities: the epoch waits for this round
        kv.pull(KEY, sum, 1);
        VarHandle done = engine.newVariable("read shares");
        engine.pushSync(rc -> memcpy.deviceToHost(rc.stream(), sum.buffer(), sum.offsetBytes(), read.duplicate()),
                sum.context(), List.of(sum.var()), List.of(done), FnProperty.COPY_FROM_DEVICE, 1, "read shares");
        engine.waitForVar(done);
        float summed = read.getFloat(0);
        View v;
        synchronized (this) {
            v = inForce(views, KEY, round);
        }
        if (summed != v.size()) {
            throw new IllegalStateException("epoch " + trainingEpoch + ": round " + Rounds.text(round) + " of '" + KEY
                    + "' summed " + summed + " workers, but view " + v.epoch() + " in force for it has " + v.size());
        }
        return v;
    }

    /**
     * The view of {@code views} (in epoch order) in force for {@code key}'s {@code round}: the last whose first
     * round of the key is not after it.
     */
    static View inForce(List<View> views, String key, long round) {
        View in = views.get(0);
        for (View v : views.subList(1, views.size())) {
            Long first = v.firstRoundOf().get(key);
            if (first == null || first <= round) { // a key created after the change is all of the new view
                in = v;
            }
        }
        return in;
    }

    /** The listener: records the view and prints the change's line (on every worker: rank 0's is the output). */
    private synchronized void changed(MembershipChange c) {
        View before = views.get(views.size() - 1);
        List<String> names = new ArrayList<>(before.workers());
        List<String> gone = new ArrayList<>();
        c.left().stream().sorted(Comparator.comparingInt(MembershipChange.Departure::rank).reversed()).forEach(d ->
                gone.add(0, (d.rank() < names.size() ? names.remove(d.rank()) : "rank " + d.rank()) + " (" + d.why() + ")"));
        String left = String.join(", ", gone);
        StringJoiner joined = new StringJoiner(", ");
        arrived |= !c.joined().isEmpty();
        notifyAll();
        for (MembershipChange.Arrival a : c.joined()) {
            String name = "w" + nextName++;
            names.add(Math.min(a.rank(), names.size()), name);
            joined.add(name + " (from period " + a.fromPeriod() + ")");
        }
        if (names.size() != c.numWorkers()) { // a change this worker cannot follow by name: number them
            names.clear();
            for (int r = 0; r < c.numWorkers(); r++) {
                names.add("r" + r);
            }
        }
        View v = new View(c.epoch(), c.rank(), List.copyOf(names), c.firstRoundOf());
        views.add(v);
        StringJoiner firsts = new StringJoiner(" ");
        c.firstRoundOf().forEach((k, r) -> firsts.add(k + "=" + Rounds.period(r) + ":" + Rounds.index(r)));
        System.out.println("membership: view " + v.epoch() + " (during epoch " + epoch + "): workers "
                + String.join(" ", v.workers()) + "; this worker rank " + v.rank() + "; left: "
                + (left.isEmpty() ? "none" : left) + "; joined: " + (joined.length() == 0 ? "none" : joined)
                + "; first rounds summed over it (period:index): " + firsts);
    }

    /**
     * Waits until this worker has moved to a view that admitted a worker (the demonstration's joiner), so that the
     * run that started one is the same whatever its JVM's start takes.
     *
     * @throws IllegalStateException if none was admitted within {@code timeout}
     */
    synchronized void awaitArrival(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (long left; !arrived; ) {
            left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new IllegalStateException("no worker joined within " + timeout.toSeconds() + " s of the joiner's "
                        + "start: see its log");
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }

    /** The line that says how training epoch {@code trainingEpoch}'s batches are split. */
    static String splitLine(int trainingEpoch, View v) {
        return "epoch " + trainingEpoch + ": each batch split over the " + v.size() + " worker" + (v.size() == 1 ? "" : "s")
                + " of view " + v.epoch() + " (" + String.join(" ", v.workers()) + "), in rank order";
    }
}
