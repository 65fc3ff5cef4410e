package org.depengine.kvstore.hazelcast.peer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.netty.buffer.ByteBuf;
import java.nio.FloatBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Random;
import org.depengine.api.CallbackOnComplete;
import org.depengine.api.Engine;
import org.depengine.kvstore.Updater;
import org.depengine.kvstore.hazelcast.protocol.Sums;
import org.depengine.kvstore.hazelcast.protocol.UpdatedValue;
import org.depengine.kvstore.spi.Key;
import org.depengine.kvstore.spi.Rounds;
import org.depengine.kvstore.spi.StoreStats;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The model check of {@code updateOn=worker}'s protocol, without Hazelcast or sockets: the real
 * {@link PeerExchange}s of 1 to 3 workers, joined by an in-memory wire that delivers each pair's frames in
 * order but interleaves the pairs, the workers' ops and their completions at random. Each worker runs a
 * random program of periods (pushes, failed producers' skipped pushes, an early end of data, pulls, a
 * period's end); every pull must give the value of a serial model that applies each round's rank-order sum
 * with the updater (exactly its round, or, after the worker's end of data, a later round of the period),
 * and at the end every worker's copy, optimizer state and update count must equal the model's, bit for bit.
 * Keys are split into parts summed by different workers and small keys summed by every worker; the
 * updaters are assign, sum, SGD, momentum and Adam. 300 seeds; 3,000 with {@code -Ddepengine.test.long=true}.
 */
class WorkerRoundsModelCheckTest {
    private static final int PERIODS = 3;
    private static Engine engine;

    @BeforeAll
    static void engine() {
        engine = Engine.create("perdevice"); // only for the keys' variables: no op is pushed
    }

    @AfterAll
    static void close() {
        engine.close();
    }

    @Test
    void everyInterleavingGivesTheSerialModelsValues() {
        int seeds = Boolean.getBoolean("depengine.test.long") ? 3000 : 300;
        for (long seed = 1; seed <= seeds; seed++) {
            run(seed);
        }
    }

    /** One op of a worker's program. */
    private record Op(String kind, int key, long round, float[] data) {
    }

    private void run(long seed) {
        Random rnd = new Random(seed);
        int n = 1 + rnd.nextInt(3);
        int splitFloats = new int[] {1, 2, 4, 1 << 20}[rnd.nextInt(4)];
        int[] lengths = {1 + rnd.nextInt(5), 2 + rnd.nextInt(7)};
        Updater updater = switch (rnd.nextInt(5)) {
            case 0 -> Updater.assign();
            case 1 -> Updater.sum();
            case 2 -> Updater.sgd(0.5f);
            case 3 -> Updater.sgd(0.25f, 0.9f, 0.01f, 1f);
            default -> Updater.adam(0.125f);
        };
        // The programs, and the serial model's rounds: per key, per period, per index, the ranks' parts.
        List<List<Op>> programs = new ArrayList<>();
        List<List<List<float[][]>>> rounds = new ArrayList<>(); // [key][period] -> list of rounds' parts by rank
        for (int k = 0; k < 2; k++) {
            List<List<float[][]>> perPeriod = new ArrayList<>();
            for (int p = 0; p < PERIODS; p++) {
                perPeriod.add(new ArrayList<>());
            }
            rounds.add(perPeriod);
        }
        float[][] initValues = new float[2][];
        for (int k = 0; k < 2; k++) {
            initValues[k] = ints(rnd, lengths[k]);
        }
        for (int r = 0; r < n; r++) {
            List<Op> prog = new ArrayList<>();
            for (int k = 0; k < 2; k++) {
                prog.add(new Op("init", k, 0, r == 0 ? initValues[k] : new float[lengths[k]]));
            }
            programs.add(prog);
        }
        // A valid no-wait program: in each period every worker first pushes (the same number of rounds of each
        // key, but a worker that ends its data early pushes fewer and ends at once), then pulls, then ends the
        // period (the barrier). A pull then waits only for pushes made without waiting, or for early ends.
        for (int p = 0; p < PERIODS; p++) {
            int[] count = {rnd.nextInt(4), rnd.nextInt(4)};
            for (int r = 0; r < n; r++) {
                List<Op> prog = programs.get(r);
                boolean early = n > 1 && rnd.nextInt(4) == 0;
                int[] mine = early ? new int[] {rnd.nextInt(count[0] + 1), rnd.nextInt(count[1] + 1)} : count.clone();
                int[] pushes = new int[2];
                while (pushes[0] < mine[0] || pushes[1] < mine[1]) {
                    int k = pushes[0] < mine[0] && (pushes[1] >= mine[1] || rnd.nextBoolean()) ? 0 : 1;
                    long round = Rounds.of(p, ++pushes[k]);
                    boolean skip = rnd.nextInt(6) == 0;
                    float[] data = skip ? null : ints(rnd, lengths[k]);
                    prog.add(new Op(skip ? "skip" : "push", k, round, data));
                    part(rounds, k, p, pushes[k], r, n, skip ? new float[0] : data);
                }
                if (early) {
                    prog.add(new Op("end", -1, p, null));
                }
                for (int pulls = rnd.nextInt(3); pulls > 0; pulls--) {
                    int k = rnd.nextInt(2);
                    prog.add(new Op("pull", k, Rounds.of(p, pushes[k]), null));
                }
                prog.add(new Op("end", -1, p, null)); // the barrier's end of the period
            }
        }
        for (int r = 0; r < n; r++) {
            for (int k = 0; k < 2; k++) {
                programs.get(r).add(new Op("pull", k, Rounds.of(PERIODS, 0), null));
            }
        }
        // The serial model: each round's rank-order sum, through the updater, in round order.
        List<List<UpdatedValue>> after = new ArrayList<>(); // [key] -> value after each round, in order
        List<List<Long>> roundIds = new ArrayList<>();
        for (int k = 0; k < 2; k++) {
            UpdatedValue v = new UpdatedValue(initValues[k].clone(), new float[0], 0);
            List<UpdatedValue> states = new ArrayList<>();
            List<Long> ids = new ArrayList<>();
            states.add(v.copy());
            ids.add(0L);
            for (int p = 0; p < PERIODS; p++) {
                List<float[][]> rs = rounds.get(k).get(p);
                for (int i = 0; i < rs.size(); i++) {
                    List<float[]> data = new ArrayList<>();
                    for (float[] part : rs.get(i)) {
                        if (part != null && part.length > 0) {
                            data.add(part);
                        }
                    }
                    if (!data.isEmpty()) {
                        v.apply(updater, "k" + k, Sums.of(data));
                    }
                    states.add(v.copy());
                    ids.add(Rounds.of(p, i + 1));
                }
            }
            after.add(states);
            roundIds.add(ids);
        }
        new Simulation(seed, rnd, n, splitFloats, lengths, updater, programs, after, roundIds).run();
    }

    private static void part(List<List<List<float[][]>>> rounds, int k, int p, int index, int rank, int n, float[] data) {
        List<float[][]> rs = rounds.get(k).get(p);
        while (rs.size() < index) {
            rs.add(new float[n][]);
        }
        rs.get(index - 1)[rank] = data;
    }

    private static float[] ints(Random rnd, int n) {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = rnd.nextInt(41) - 20;
        }
        return a;
    }

    /** The workers, their wire and the scheduler. */
    private static final class Simulation {
        private final long seed;
        private final Random rnd;
        private final int n;
        private final int[] lengths;
        private final Updater updater;
        private final List<List<Op>> programs;
        private final List<List<UpdatedValue>> model;
        private final List<List<Long>> modelRounds;
        private final PeerExchange[] workers;
        private final Key[][] keys;
        private final int[] next;
        private final boolean[] busy;
        private final int[] endedPeriod;
        private final List<Deque<Runnable>> channels = new ArrayList<>(); // [from * n + to]
        private final Deque<Runnable> completions = new ArrayDeque<>();
        private String failure;

        Simulation(long seed, Random rnd, int n, int splitFloats, int[] lengths, Updater updater, List<List<Op>> programs,
                   List<List<UpdatedValue>> model, List<List<Long>> modelRounds) {
            this.seed = seed;
            this.rnd = rnd;
            this.n = n;
            this.lengths = lengths;
            this.updater = updater;
            this.programs = programs;
            this.model = model;
            this.modelRounds = modelRounds;
            this.workers = new PeerExchange[n];
            this.keys = new Key[n][2];
            this.next = new int[n];
            this.busy = new boolean[n];
            this.endedPeriod = new int[n];
            Arrays.fill(endedPeriod, -1);
            for (int i = 0; i < n * n; i++) {
                channels.add(new ArrayDeque<>());
            }
            for (int r = 0; r < n; r++) {
                int from = r;
                workers[r] = new PeerExchange(r, n, splitFloats, 60_000, (key, sum) -> apply(key, sum), null, new StoreStats(),
                        in -> new MemoryWire(from));
                for (int k = 0; k < 2; k++) {
                    keys[r][k] = new Key(engine, "k" + k, lengths[k], 0);
                }
            }
        }

        private void apply(Key key, FloatBuffer sum) {
            Updater u = updater;
            u.update(key.name(), sum.asReadOnlyBuffer(), key.stored(), key.updaterState(u.stateFloats()), key.nextStep());
        }

        void run() {
            int guard = 0;
            while (true) {
                if (failure != null) {
                    fail("seed " + seed + ": " + failure);
                }
                List<Runnable> choices = new ArrayList<>();
                for (int r = 0; r < n; r++) {
                    int w = r;
                    if (!busy[r] && next[r] < programs.get(r).size()) {
                        choices.add(() -> start(w));
                    }
                }
                for (Deque<Runnable> ch : channels) {
                    if (!ch.isEmpty()) {
                        choices.add(() -> ch.poll().run());
                    }
                }
                if (!completions.isEmpty()) {
                    choices.add(() -> completions.poll().run());
                }
                if (choices.isEmpty()) {
                    break;
                }
                choices.get(rnd.nextInt(choices.size())).run();
                if (++guard > 1_000_000) {
                    fail("seed " + seed + ": no end");
                }
            }
            for (int r = 0; r < n; r++) {
                assertTrue(next[r] == programs.get(r).size() && !busy[r], "seed " + seed + ": rank " + r
                        + " is stuck at op " + next[r] + " of " + programs.get(r).size() + " (" + (next[r] > 0
                        ? programs.get(r).get(next[r] - 1) : "none") + ")");
                for (int k = 0; k < 2; k++) {
                    UpdatedValue last = model.get(k).get(model.get(k).size() - 1);
                    float[] got = new float[lengths[k]];
                    keys[r][k].stored().get(got);
                    assertArrayEquals(last.value(), got, "seed " + seed + ": rank " + r + "'s final copy of k" + k);
                    assertEquals(last.steps(), keys[r][k].steps(), "seed " + seed + ": rank " + r + "'s update count of k" + k);
                    if (last.state().length > 0) {
                        assertArrayEquals(last.state(), keys[r][k].stateCopy(), "seed " + seed + ": rank " + r + "'s state");
                    }
                }
            }
            for (PeerExchange x : workers) {
                x.close();
            }
        }

        private void start(int r) {
            Op op = programs.get(r).get(next[r]++);
            busy[r] = true;
            CallbackOnComplete done = new CallbackOnComplete() {
                @Override
                public void complete() {
                    completions.add(() -> finished(r, op));
                }

                @Override
                public void fail(Throwable error) {
                    failure = "rank " + r + "'s " + op.kind() + " of k" + op.key() + " round " + Rounds.text(op.round())
                            + " failed: " + error;
                }
            };
            Key k = op.key() < 0 ? null : keys[r][op.key()];
            switch (op.kind()) {
                case "init" -> {
                    k.stored().put(op.data());
                    workers[r].init(k, done);
                }
                case "push" -> {
                    k.merged().put(op.data());
                    workers[r].send(k, op.round(), done);
                }
                case "skip" -> workers[r].skipped(k, op.round(), done);
                case "pull" -> workers[r].fetch(k, op.round(), done);
                case "end" -> {
                    endedPeriod[r] = (int) op.round();
                    workers[r].endPeriod((int) op.round(), done);
                }
                default -> throw new AssertionError(op);
            }
        }

        private void finished(int r, Op op) {
            busy[r] = false;
            if (!op.kind().equals("pull")) {
                return;
            }
            float[] got = new float[lengths[op.key()]];
            keys[r][op.key()].stored().get(got);
            List<Long> ids = modelRounds.get(op.key());
            int at = Rounds.index(op.round()) == 0 ? lastOfPeriodsBefore(ids, Rounds.period(op.round()))
                    : ids.indexOf(op.round());
            boolean laterAllowed = endedPeriod[r] >= Rounds.period(op.round());
            for (int i = at; i < ids.size(); i++) {
                if (i > at && (!laterAllowed || Rounds.period(ids.get(i)) != Rounds.period(op.round()))) {
                    break;
                }
                if (Arrays.equals(model.get(op.key()).get(i).value(), got)) {
                    return;
                }
            }
            failure = "rank " + r + "'s pull of k" + op.key() + " round " + Rounds.text(op.round()) + " gave "
                    + Arrays.toString(got) + ", the model " + Arrays.toString(model.get(op.key()).get(at).value());
        }

        private static int lastOfPeriodsBefore(List<Long> ids, int period) {
            int at = 0;
            for (int i = 0; i < ids.size(); i++) {
                if (Rounds.period(ids.get(i)) < period) {
                    at = i;
                }
            }
            return at;
        }

        /** Frames from one worker: each pair's in order, delivered when the scheduler picks that pair. */
        private final class MemoryWire implements Wire {
            private final int from;

            MemoryWire(int from) {
                this.from = from;
            }

            @Override
            public void send(int peer, Frame f, ByteBuf payload, Runnable onWritten) {
                ByteBuf copy = payload == null ? null : payload.copy();
                if (payload != null) {
                    payload.release();
                }
                if (onWritten != null) {
                    completions.add(onWritten);
                }
                channels.get(from * n + peer).add(() -> {
                    PeerExchange to = workers[peer];
                    ByteBuf target = f.payloadBytes() == 0 ? null : to.inbound().target(from, f);
                    if (target != null) {
                        target.writeBytes(copy);
                    }
                    if (copy != null) {
                        copy.release();
                    }
                    to.inbound().received(from, f, target);
                });
            }

            @Override
            public void close() {
            }
        }
    }
}
