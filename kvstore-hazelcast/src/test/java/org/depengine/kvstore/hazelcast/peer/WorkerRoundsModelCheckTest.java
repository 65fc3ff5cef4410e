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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 *
 * <p>Elastic jobs too: 2 to 4 workers, one or two of them lost at random moments (what a lost worker had
 * sent arrives or not, a prefix of each link), each survivor told each view at its own moment, in order, as
 * the membership would. Then every survivor must finish its program, its pulls must give values of the
 * serial model of the elastic rule ({@code docs/elastic-design.md} section 3: each round summed over the
 * members of the view the change's agreed rounds give it), and its final copy must equal that model's. Half of
 * them have a joiner too, admitted by a view of its own at a random moment (before, during or after a loss, and
 * it may be lost itself): its program is a member's from the period its admission gives it on, its pushes count
 * from that period, and its pulls and final copy must give the model's values as the members' do.
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
            run(seed, false);
        }
    }

    @Test
    void elasticJobsLosingWorkersAtAnyMomentEndInTheRulesSerialModel() {
        int seeds = Boolean.getBoolean("depengine.test.long") ? 3000 : 300;
        int changes = 0;
        for (long seed = ONLY_SEED > 0 ? ONLY_SEED : 1; seed <= (ONLY_SEED > 0 ? ONLY_SEED : seeds); seed++) {
            try {
                changes += run(seed, true);
            } catch (RuntimeException e) {
                throw new AssertionError("seed " + seed + ": " + e, e);
            }
        }
        assertTrue(changes > seeds / 2, "only " + changes + " view changes in " + seeds + " runs");
        assertTrue(admissions > seeds / 4 && admittedBeforeTheEnd > seeds / 10, "only " + admissions + " joiners admitted "
                + "in " + seeds + " runs, " + admittedBeforeTheEnd + " of them before the members' last period");
    }

    /** Joiners admitted in the elastic runs, and those admitted with periods left to push in. */
    private static int admissions;
    private static int admittedBeforeTheEnd;

    /** With {@code -Ddepengine.test.seed=N}, only seed N runs (elastic), and what happens is printed. */
    private static final long ONLY_SEED = Long.getLong("depengine.test.seed", 0);

    private static void dbg(java.util.function.Supplier<String> s) {
        if (ONLY_SEED > 0) {
            System.err.println(s.get());
        }
    }

    /** One op of a worker's program. */
    private record Op(String kind, int key, long round, float[] data) {
    }

    /** Runs one seed; returns the views installed after the first. */
    private int run(long seed, boolean elastic) {
        Random rnd = new Random(seed);
        int n = elastic ? 2 + rnd.nextInt(3) : 1 + rnd.nextInt(3);
        // Half the elastic runs have a joiner: place n, admitted at a random moment, whose program is a member's
        // from the period its admission gives it on.
        boolean joiner = elastic && rnd.nextBoolean();
        int places = joiner ? n + 1 : n;
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
        for (int r = 0; r < places; r++) {
            List<Op> prog = new ArrayList<>();
            for (int k = 0; k < 2; k++) {
                // Elastic jobs init every worker's key alike: any survivor may have to give the init (a joiner's
                // init value is never the key's: it takes the job's).
                prog.add(new Op("init", k, 0, r == n ? ints(rnd, lengths[k]) : r == 0 || elastic ? initValues[k]
                        : new float[lengths[k]]));
            }
            programs.add(prog);
        }
        // A valid no-wait program: in each period every worker first pushes (the same number of rounds of each
        // key, but a worker that ends its data early pushes fewer and ends at once), then pulls, then ends the
        // period (the barrier). A pull then waits only for pushes made without waiting, or for early ends.
        for (int p = 0; p < PERIODS; p++) {
            int[] count = {rnd.nextInt(4), rnd.nextInt(4)};
            for (int r = 0; r < places; r++) {
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
                    part(rounds, k, p, pushes[k], r, places, skip ? new float[0] : data);
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
        for (int r = 0; r < places; r++) {
            for (int k = 0; k < 2; k++) {
                programs.get(r).add(new Op("pull", k, Rounds.of(PERIODS, 0), null));
            }
        }
        Simulation sim = new Simulation(seed, rnd, n, places, splitFloats, lengths, updater, programs, elastic);
        sim.run(membersOf -> {
            // The serial model: each round's rank-order sum over the members of its view, through the updater.
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
                        long id = Rounds.of(p, i + 1);
                        int[] members = membersOf.apply(k, id);
                        List<float[]> data = new ArrayList<>();
                        boolean any = false;
                        for (int m : members) {
                            if (m == n && p < sim.joinPeriod) {
                                continue; // the joiner ended every period before its first
                            }
                            float[] part = rs.get(i)[m];
                            any |= part != null;
                            if (part != null && part.length > 0) {
                                data.add(part);
                            }
                        }
                        if (!any) {
                            continue; // no member of its view pushed it: no such round
                        }
                        if (!data.isEmpty()) {
                            v.apply(updater, "k" + k, Sums.of(data));
                        }
                        states.add(v.copy());
                        ids.add(id);
                    }
                }
                after.add(states);
                roundIds.add(ids);
            }
            return new Model(after, roundIds);
        });
        return sim.views.size() - 1;
    }

    /** The serial model: per key, the value after each round, and the rounds. */
    private record Model(List<List<UpdatedValue>> after, List<List<Long>> roundIds) {
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
        /** The places: the first view's {@link #n} workers, then the joiner's if any. */
        private final int places;
        /** The joiner's whole program, as a member's from period 0: what of it runs depends on its admission. */
        private final List<Op> joinerProgram;
        /** The period the joiner's rounds start in, once admitted; the view that admitted it. */
        int joinPeriod = Integer.MAX_VALUE;
        private int admittedIn = -1;
        private boolean joinTold;
        private final int[] lengths;
        private final Updater updater;
        private final List<List<Op>> programs;
        private final boolean elastic;
        private final PeerExchange[] workers;
        private final Key[][] keys;
        private final int[] next;
        /** Per worker, its ops started and not completed, and its ops started (their indices in its program). */
        private final List<java.util.Set<Integer>> running = new ArrayList<>();
        private final List<java.util.Set<Integer>> startedOps = new ArrayList<>();
        private final int[] endedPeriod;
        private final List<Deque<Delivery>> channels = new ArrayList<>(); // [from * places + to]
        private final Deque<Runnable> completions = new ArrayDeque<>();
        /** Elastic jobs: which workers are lost, the views (places of their members), the next view each worker is told. */
        private final boolean[] dead;
        final List<int[]> views = new ArrayList<>();
        private final int[] told;
        private final int maxLosses;
        private int losses;
        /** Per view installed anywhere, each key's agreed round. */
        private final Map<Integer, Map<String, Long>> agreed = new HashMap<>();
        /** The pulls made: checked against the model once the run's views are known. */
        private final List<Object[]> pulls = new ArrayList<>();
        private String failure;

        Simulation(long seed, Random rnd, int n, int places, int splitFloats, int[] lengths, Updater updater,
                   List<List<Op>> programs, boolean elastic) {
            this.seed = seed;
            this.rnd = rnd;
            this.n = n;
            this.places = places;
            this.lengths = lengths;
            this.updater = updater;
            this.programs = programs;
            this.joinerProgram = places > n ? programs.set(n, new ArrayList<>()) : null; // it runs nothing until admitted
            this.elastic = elastic;
            this.workers = new PeerExchange[places];
            this.keys = new Key[places][2];
            this.next = new int[places];
            for (int r = 0; r < places; r++) {
                running.add(new java.util.HashSet<>());
                startedOps.add(new java.util.HashSet<>());
            }
            this.endedPeriod = new int[places];
            this.dead = new boolean[places];
            this.told = new int[places];
            Arrays.fill(told, 1);
            if (places > n) {
                told[n] = Integer.MAX_VALUE; // told the views from the one that admits it
            }
            this.maxLosses = elastic ? 1 + rnd.nextInt(Math.min(2, n - 1)) : 0;
            int[] first = new int[n];
            Arrays.setAll(first, i -> i);
            views.add(first);
            Arrays.fill(endedPeriod, -1);
            for (int i = 0; i < places * places; i++) {
                channels.add(new ArrayDeque<>());
            }
            for (int r = 0; r < places; r++) {
                int from = r;
                boolean joins = r == n;
                workers[r] = new PeerExchange(r, joins ? 1 : n, splitFloats, 60_000, elastic, (key, sum) -> apply(key, sum),
                        null, new StoreStats(), in -> new MemoryWire(from));
                workers[r].joining = joins;
                workers[r].onViewInstalled((epoch, rank, size, rounds, joinAt) -> {
                    dbg(() -> "w" + from + " installed " + epoch + " as rank " + rank + " agreed " + rounds + " join " + joinAt);
                    if (joins && admittedIn < 0) {
                        admitted(epoch, joinAt);
                    }
                    completions.add(() -> { // the store tells its listeners, then lets the view's rounds apply
                        if (!dead[from]) {
                            workers[from].released(epoch);
                        }
                    });
                    Map<String, Long> before = agreed.putIfAbsent(epoch, new HashMap<>(rounds));
                    if (before != null && !before.equals(rounds)) {
                        failure = "view " + epoch + "'s agreed rounds differ between workers: " + before + ", " + rounds;
                    }
                });
                for (int k = 0; k < 2; k++) {
                    keys[r][k] = new Key(engine, "k" + k, lengths[k], 0);
                }
            }
        }

        /**
         * The joiner's view {@code epoch} is installed on it: its store starts in {@code period} (its keys made
         * then), and its program is its inits, then its ops of that period and later, then its final pulls.
         */
        private void admitted(int epoch, int period) {
            admissions++;
            admittedBeforeTheEnd += period < PERIODS ? 1 : 0;
            admittedIn = epoch;
            joinPeriod = period;
            List<Op> prog = programs.get(n);
            for (Op op : joinerProgram) {
                boolean mine = switch (op.kind()) {
                    case "init" -> true;
                    case "end" -> op.round() >= period;
                    default -> Rounds.period(op.round()) >= period;
                };
                if (mine && (period <= PERIODS || op.kind().equals("init"))) {
                    prog.add(op);
                }
            }
            for (int k = 0; k < 2; k++) {
                keys[n][k] = new Key(engine, "k" + k, lengths[k], period);
            }
        }

        private void apply(Key key, FloatBuffer sum) {
            dbg(() -> {
                float[] g = new float[sum.remaining()];
                sum.duplicate().get(g);
                return "apply " + key.name() + " step " + (key.steps() + 1) + " sum " + Arrays.toString(g);
            });
            Updater u = updater;
            u.update(key.name(), sum.asReadOnlyBuffer(), key.stored(), key.updaterState(u.stateFloats()), key.nextStep());
        }

        void run(java.util.function.Function<java.util.function.BiFunction<Integer, Long, int[]>, Model> modelOf) {
            int guard = 0;
            while (true) {
                if (failure != null) {
                    fail("seed " + seed + ": " + failure);
                }
                List<Runnable> choices = new ArrayList<>();
                List<Integer> live = new ArrayList<>();
                for (int r = 0; r < places; r++) {
                    if (!dead[r] && (r < n || joinTold)) {
                        live.add(r);
                    }
                }
                if (losses < maxLosses && live.size() > 1 && rnd.nextInt(30) == 0) {
                    lose(live.get(rnd.nextInt(live.size())));
                    continue;
                }
                if (places > n && !joinTold && rnd.nextInt(30) == 0) {
                    joinTold = true; // the joiner registered: the next view admits it
                    int[] last = views.get(views.size() - 1);
                    int[] with = Arrays.copyOf(last, last.length + 1);
                    with[last.length] = n;
                    views.add(with);
                    told[n] = views.size() - 1;
                    dbg(() -> "JOIN " + n + " in view " + (views.size() - 1));
                    continue;
                }
                for (int r : live) {
                    int w = r;
                    for (int i = next[r]; i < programs.get(r).size(); i++) {
                        if (!startedOps.get(r).contains(i) && mayStart(r, i)) {
                            int op = i;
                            choices.add(() -> start(w, op));
                        }
                        if (!elastic) {
                            break;
                        }
                    }
                    if (told[r] < views.size()) {
                        choices.add(() -> {
                            int e = told[w]++;
                            dbg(() -> "tell " + w + " view " + e + " " + Arrays.toString(views.get(e)));
                            workers[w].changeView(e, views.get(e));
                        });
                    }
                }
                for (Deque<Delivery> ch : channels) {
                    if (!ch.isEmpty()) {
                        choices.add(() -> ch.poll().deliver().run());
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
            for (int r = 0; r < places; r++) {
                int w = r;
                dbg(() -> {
                    StringBuilder sb = new StringBuilder("w" + w + (dead[w] ? " (dead)" : "") + " next " + next[w] + " running ");
                    running.get(w).forEach(i -> sb.append(programs.get(w).get(i)).append(' '));
                    sb.append("\n   program ");
                    for (Op o : programs.get(w)) {
                        sb.append(o.kind()).append(" k").append(o.key()).append(' ').append(Rounds.text(o.round())).append("; ");
                    }
                    return sb.toString();
                });
            }
            Model m = modelOf.apply(this::membersOf);
            for (Object[] pull : pulls) {
                if (dead[(Integer) pull[0]]) {
                    continue; // a lost worker may have seen a round no survivor applied, which the survivors redo
                }
                check(m, (Integer) pull[0], (Op) pull[1], (float[]) pull[2], (Boolean) pull[3]);
                if (failure != null) {
                    fail("seed " + seed + ": " + failure);
                }
            }
            for (int r = 0; r < places; r++) {
                if (dead[r] || r == n && !joinTold) {
                    continue;
                }
                assertTrue(r < n || admittedIn >= 0, () -> "seed " + seed + ": the joiner, told view " + told[n]
                        + ", was never admitted; views " + views.size() + ", agreed " + agreed);
                assertTrue(next[r] == programs.get(r).size() && running.get(r).isEmpty(), "seed " + seed + ": rank " + r
                        + " is stuck at op " + next[r] + " of " + programs.get(r).size() + " (" + (next[r] > 0
                        ? programs.get(r).get(next[r] - 1) : "none") + "), views " + views.size() + ", agreed " + agreed);
                for (int k = 0; k < 2; k++) {
                    UpdatedValue last = m.after().get(k).get(m.after().get(k).size() - 1);
                    if (r == n && joinPeriod > PERIODS) {
                        // Admitted after every member's last period: it never pulled; its copy is the model's at the round
                        // it says it is at (the one it was sent, or a later one a view change brought it to).
                        PeerKey pk = workers[n].keys.get("k" + k);
                        long at = pk == null || !pk.applied.started() ? 0 : pk.applied.applied();
                        int i = m.roundIds().get(k).indexOf(at);
                        last = i < 0 ? null : m.after().get(k).get(i);
                        assertTrue(last != null, "seed " + seed + ": the joiner's k" + k + " is at round " + Rounds.text(at)
                                + ", which the model lacks");
                    }
                    float[] got = new float[lengths[k]];
                    keys[r][k].stored().get(got);
                    assertArrayEquals(last.value(), got, "seed " + seed + ": rank " + r + "'s final copy of k" + k
                            + " (agreed " + agreed + ")");
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

        /** The workers (places, in rank order) whose pushes make round {@code round} of key {@code k}, by the changes' agreed rounds. */
        private int[] membersOf(int k, long round) {
            int view = 0;
            for (int e = 1; e < views.size(); e++) {
                if (!agreed.containsKey(e)) {
                    continue; // a view no worker installed (a later one replaced it first)
                }
                // A key no survivor knew when e came has all its rounds summed in e or later.
                long a = agreed.get(e).getOrDefault("k" + k, -1L);
                if (round > a) {
                    view = e; // summed in view e: no survivor had applied it when e came
                }
            }
            return views.get(view);
        }

        /** Worker {@code w} is lost: what it sent arrives or not (a prefix of each link); nothing reaches it any more. */
        private void lose(int w) {
            dbg(() -> "LOSE " + w);
            losses++;
            dead[w] = true;
            for (int to = 0; to < places; to++) {
                Deque<Delivery> out = channels.get(w * places + to);
                int keep = rnd.nextInt(out.size() + 1);
                while (out.size() > keep) {
                    out.pollLast().drop();
                }
                Deque<Delivery> in = channels.get(to * places + w);
                while (!in.isEmpty()) {
                    in.poll().drop();
                }
            }
            int[] last = views.get(views.size() - 1);
            views.add(Arrays.stream(last).filter(m -> m != w).toArray());
        }

        private void start(int r, int index) {
            startedOps.get(r).add(index);
            while (startedOps.get(r).contains(next[r])) {
                next[r]++; // the first op not started
            }
            Op op = programs.get(r).get(index);
            dbg(() -> "w" + r + " starts " + op.kind() + " k" + op.key() + " " + Rounds.text(op.round()) + " " + Arrays.toString(op.data()));
            running.get(r).add(index);
            CallbackOnComplete done = new CallbackOnComplete() {
                @Override
                public void complete() {
                    completions.add(() -> finished(r, index, op));
                }

                @Override
                public void fail(Throwable error) {
                    if (!dead[r]) {
                        failure = "rank " + r + "'s " + op.kind() + " of k" + op.key() + " round " + Rounds.text(op.round())
                                + " failed: " + error;
                    }
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

        /**
         * Whether worker {@code r}'s op {@code i} may start: the engine orders a worker's ops of one key, and a
         * period's end after every op before it (and every op after it after it). A job that is not elastic runs
         * one op at a time (its push completes at once, so that order is the same).
         */
        private boolean mayStart(int r, int i) {
            if (!elastic) {
                return running.get(r).isEmpty();
            }
            Op op = programs.get(r).get(i);
            for (int j = 0; j < i; j++) {
                boolean done = startedOps.get(r).contains(j) && !running.get(r).contains(j);
                Op before = programs.get(r).get(j);
                if (!done && (before.key() == op.key() || before.key() < 0 || op.key() < 0)) {
                    return false;
                }
            }
            return true;
        }

        private void finished(int r, int index, Op op) {
            if (dead[r]) {
                return;
            }
            running.get(r).remove(index);
            if (!op.kind().equals("pull")) {
                return;
            }
            float[] got = new float[lengths[op.key()]];
            keys[r][op.key()].stored().get(got);
            pulls.add(new Object[] {r, op, got, endedPeriod[r] >= Rounds.period(op.round())});
        }

        private void check(Model m, int r, Op op, float[] got, boolean laterAllowed) {
            List<Long> ids = m.roundIds().get(op.key());
            int at = Rounds.index(op.round()) == 0 ? lastOfPeriodsBefore(ids, Rounds.period(op.round()))
                    : ids.indexOf(op.round());
            if (at < 0) {
                failure = "rank " + r + " pulled round " + Rounds.text(op.round()) + " of k" + op.key() + ", which the model lacks";
                return;
            }
            for (int i = at; i < ids.size(); i++) {
                if (i > at && (!laterAllowed || Rounds.period(ids.get(i)) != Rounds.period(op.round()))) {
                    break;
                }
                if (Arrays.equals(m.after().get(op.key()).get(i).value(), got)) {
                    return;
                }
            }
            failure = "rank " + r + "'s pull of k" + op.key() + " round " + Rounds.text(op.round()) + " gave "
                    + Arrays.toString(got) + ", the model " + Arrays.toString(m.after().get(op.key()).get(at).value());
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

        /**
         * A frame on its way: how it is delivered, its payload's copy, and the buffer the receiver gave for the
         * payload once the frame's header arrived (both released if it is never delivered).
         */
        private record Delivery(Runnable deliver, ByteBuf copy, ByteBuf target) {
            void drop() {
                if (copy != null) {
                    copy.release();
                }
                if (target != null) {
                    target.release();
                }
            }
        }

        /**
         * Frames from one worker: each pair's in order, delivered when the scheduler picks that pair. A frame with a
         * payload arrives in two steps, as from a socket: its header (the receiver gives the payload's buffer), then,
         * as that pair's next step, the payload; anything else may happen in between (a view installed, say).
         */
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
                    completions.add(() -> {
                        if (!dead[from]) {
                            onWritten.run();
                        }
                    });
                }
                if (f.type() != Frame.Type.PUSH && f.type() != Frame.Type.SUM) {
                    dbg(() -> "w" + from + " -> w" + peer + " " + f.type() + " " + f.key() + " epoch " + f.epoch() + " round " + f.round());
                }
                if (dead[peer] || dead[from]) {
                    if (copy != null) {
                        copy.release();
                    }
                    return;
                }
                Deque<Delivery> channel = channels.get(from * places + peer);
                PeerExchange to = workers[peer];
                if (f.payloadBytes() == 0) {
                    channel.add(new Delivery(() -> {
                        if (copy != null) {
                            copy.release();
                        }
                        to.inbound().received(from, f, null);
                    }, copy, null));
                    return;
                }
                channel.add(new Delivery(() -> {
                    ByteBuf target = to.inbound().target(from, f);
                    channel.addFirst(new Delivery(() -> {
                        if (target != null) {
                            target.writeBytes(copy);
                        }
                        copy.release();
                        to.inbound().received(from, f, target);
                    }, copy, target));
                }, copy, null));
            }

            @Override
            public void close() {
            }
        }
    }
}
