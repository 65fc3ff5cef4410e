package org.depengine.kvstore.hazelcast.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.depengine.kvstore.spi.Rounds;
import org.junit.jupiter.api.Test;

/**
 * The model check of the elastic rule ({@link ElasticRule}, {@code docs/elastic-design.md} section 3) over
 * the pure parts of {@code updateOn=worker}'s protocol: 1 to 4 workers, each with its {@link AppliedRounds}
 * and a {@link RoundState} per chunk it sums, joined by links that deliver each pair's frames in order but
 * interleave the pairs, the workers' programs (pushes, early ends of data, period ends) and up to two losses
 * at random. A lost worker's frames already sent arrive or not (a prefix of each link); each survivor
 * freezes at its own moment after the loss; when all have, the leader decides by {@link ElasticRule}, the
 * survivors lay the key out again for the new view, re-send their open pushes and announce their ends of
 * data, and the forwards and state transfers travel as frames, so a second loss can come while they are
 * on the way (a donor lost before its frame arrived) or before the decision.
 *
 * <p>At the end, whatever the interleaving: every survivor's copy went through the same rounds; each round's
 * sum is exactly the pushes of the members of the view it was summed in (the lost worker's included in the
 * old view's rounds, never in the new one's); no round of an old view comes after one of a newer view, and
 * none of the old view is after the round the change agreed; every round a survivor pushed was applied;
 * and the copies equal the serial fold of those sums. Nothing deadlocks. 3,000 seeds; 30,000 with
 * {@code -Ddepengine.test.long=true}.
 */
class ElasticRoundsModelCheckTest {
    private static final long MOD = 2_147_483_647L;
    private static final int EVERY = -1;

    @Test
    void everyInterleavingOfLossesEndsInTheRulesSerialModel() {
        int seeds = Boolean.getBoolean("depengine.test.long") ? 30_000 : 3_000;
        int[] changes = new int[3];
        int[] actions = new int[ElasticRule.Action.values().length];
        for (long seed = 1; seed <= seeds; seed++) {
            Sim sim = new Sim(seed);
            sim.run();
            changes[Math.min(2, sim.decisions.size())]++;
            sim.actions.forEach(a -> actions[a.ordinal()]++);
        }
        // The seeds reach every path: no change, one, two; survivors at A, forwarded to, given state.
        assertTrue(changes[0] > 0 && changes[1] > 0 && changes[2] > 0, "changes per run " + Arrays.toString(changes));
        for (ElasticRule.Action a : ElasticRule.Action.values()) {
            assertTrue(actions[a.ordinal()] > 0, "no survivor took action " + a + ": " + Arrays.toString(actions));
        }
    }

    private enum Kind { INIT, PUSH, SUM, END, CLOSED, FORWARD, STATE }

    /** A frame: its view's epoch, sender, and what it carries. */
    private record Frame(int epoch, Kind kind, int from, int chunk, long round, long[] data, int period, List<long[]> history) {
    }

    /** A worker's op: a push of {@code round}, or (round < 0) the end of period {@code period}. */
    private record Op(long round, int period) {
    }

    private static final class Node {
        final int idx;
        final String id;
        final List<Op> program = new ArrayList<>();
        int pc;
        boolean alive = true;
        boolean frozen;
        boolean awaiting;
        int epoch;
        View view;
        int rank;
        List<int[]> layout;
        long[] value;
        /** The rounds applied: {round, epoch of the view that summed it}. */
        List<long[]> history = new ArrayList<>();
        AppliedRounds applied;
        long[] kept;
        long keptEpoch;
        /** The view a forwarded sum waiting here was made in, or -1. */
        long sumEpoch = -1;
        long pushed;
        long[] pushedData;
        int myEnded = -1;
        Map<Integer, RoundState<long[]>> reducers = new HashMap<>();
        int[] reducerEnded;
        int sentClosed;
        int[] closedBy;
        final TreeMap<Long, long[]> sums = new TreeMap<>();

        Node(int idx) {
            this.idx = idx;
            this.id = "w" + idx;
        }
    }

    private static final class Sim {
        final long seed;
        final Random rnd;
        final int len;
        final boolean sliced;
        final long[] init;
        final List<Node> nodes = new ArrayList<>();
        final ArrayDeque<Frame>[][] links;
        final Map<Integer, View> views = new HashMap<>();
        final List<long[]> decisions = new ArrayList<>(); // {epoch, agreed}
        final List<ElasticRule.Action> actions = new ArrayList<>();
        final Set<String> lostSince = new LinkedHashSet<>();
        View view;
        int losses;
        final int maxLosses;
        final StringBuilder trace = new StringBuilder();

        @SuppressWarnings({"unchecked", "rawtypes"})
        Sim(long seed) {
            this.seed = seed;
            this.rnd = new Random(seed);
            int n = 1 + rnd.nextInt(4);
            this.len = 4 + rnd.nextInt(3);
            this.sliced = rnd.nextBoolean();
            this.init = data(rnd, len);
            this.maxLosses = n == 1 ? 0 : 1 + rnd.nextInt(Math.min(2, n - 1));
            this.links = new ArrayDeque[n][n];
            for (int a = 0; a < n; a++) {
                for (int b = 0; b < n; b++) {
                    links[a][b] = new ArrayDeque<>();
                }
            }
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                nodes.add(new Node(i));
                ids.add("w" + i);
            }
            int periods = 1 + rnd.nextInt(4);
            for (int p = 0; p < periods; p++) {
                int count = rnd.nextInt(4);
                for (Node w : nodes) {
                    int mine = n > 1 && rnd.nextInt(3) == 0 ? rnd.nextInt(count + 1) : count;
                    for (int i = 1; i <= mine; i++) {
                        w.program.add(new Op(Rounds.of(p, i), p));
                    }
                    w.program.add(new Op(-1, p));
                }
            }
            view = View.first(ids);
            views.put(0, view);
            for (Node w : nodes) {
                install(w, view, 0);
            }
            Node zero = nodes.get(0);
            startInit(zero);
        }

        void run() {
            try {
                loop();
                check();
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError("seed " + seed + " (" + nodes.size() + " workers, " + (sliced ? "sliced" : "one chunk")
                        + "): " + e.getMessage() + "\ntrace:\n" + trace, e);
            }
        }

        private void loop() {
            for (int steps = 0; ; steps++) {
                if (steps > 100_000) {
                    fail("no end after 100,000 steps");
                }
                List<Runnable> can = new ArrayList<>();
                List<Node> live = nodes.stream().filter(w -> w.alive).toList();
                if (losses < maxLosses && live.size() > 1 && rnd.nextInt(40) == 0) {
                    lose(live.get(rnd.nextInt(live.size())));
                    continue;
                }
                for (Node w : live) {
                    if (canRun(w)) {
                        can.add(() -> runOp(w));
                    }
                    if (!lostSince.isEmpty() && !w.frozen) {
                        can.add(() -> freeze(w));
                    }
                }
                for (int a = 0; a < nodes.size(); a++) {
                    for (int b = 0; b < nodes.size(); b++) {
                        if (!links[a][b].isEmpty() && nodes.get(b).alive) {
                            int from = a;
                            int to = b;
                            can.add(() -> deliver(from, to));
                        }
                    }
                }
                if (!lostSince.isEmpty() && live.stream().allMatch(w -> w.frozen)) {
                    can.add(this::decide);
                }
                if (can.isEmpty()) {
                    return;
                }
                can.get(rnd.nextInt(can.size())).run();
            }
        }

        // ------------------------------------------------------------ the workers' protocol

        private boolean canRun(Node w) {
            if (w.frozen || w.awaiting || w.pc >= w.program.size()) {
                return false;
            }
            Op op = w.program.get(w.pc);
            // A push waits until the worker applied its previous push's round (one open round per key).
            return op.round() < 0 || w.applied.started() && (w.pushed == 0 || w.applied.applied() >= w.pushed);
        }

        private void runOp(Node w) {
            Op op = w.program.get(w.pc++);
            if (op.round() < 0) {
                trace.append(w.id).append(" ends period ").append(op.period()).append('\n');
                w.myEnded = op.period();
                sendAll(w, Kind.END, 0, 0, null, op.period(), null);
                reducerEnded(w, w.rank, op.period());
            } else {
                long[] d = push(w, op.round());
                trace.append(w.id).append(" pushes ").append(Rounds.text(op.round())).append('\n');
                w.pushed = op.round();
                w.pushedData = d;
                sendPush(w, op.round(), d);
            }
        }

        private void sendPush(Node w, long round, long[] d) {
            for (int c = 0; c < w.layout.size(); c++) {
                int[] ch = w.layout.get(c);
                long[] part = Arrays.copyOfRange(d, ch[0], ch[0] + ch[1]);
                if (ch[2] == EVERY) {
                    sendAll(w, Kind.PUSH, c, round, part, 0, null);
                }
                if (ch[2] == EVERY || ch[2] == w.rank) {
                    offer(w, c, w.rank, round, part);
                } else {
                    send(w, nodeAt(w, ch[2]), new Frame(w.epoch, Kind.PUSH, w.idx, c, round, part, 0, null));
                }
            }
        }

        private void offer(Node w, int c, int fromRank, long round, long[] part) {
            finish(w, c, w.reducers.get(c).offer(fromRank, round, part));
        }

        private void finish(Node w, int c, List<RoundState.Completed<long[]>> done) {
            int[] ch = w.layout.get(c);
            for (RoundState.Completed<long[]> r : done) {
                long[] sum = new long[ch[1]];
                for (long[] s : r.slots()) {
                    for (int i = 0; i < sum.length; i++) {
                        sum[i] += s[i];
                    }
                }
                if (ch[2] != EVERY) {
                    sendAll(w, Kind.SUM, c, r.round(), sum, 0, null);
                }
                takeSum(w, c, r.round(), sum);
            }
        }

        private void takeSum(Node w, int c, long round, long[] part) {
            if (w.applied.started() && round <= w.applied.applied()) {
                return;
            }
            int[] ch = w.layout.get(c);
            System.arraycopy(part, 0, w.sums.computeIfAbsent(round, r -> new long[len]), ch[0], ch[1]);
            w.applied.arrived(round);
            apply(w);
        }

        private void reducerEnded(Node w, int rank, int period) {
            if (period <= w.reducerEnded[rank]) {
                return;
            }
            w.reducerEnded[rank] = period;
            for (Map.Entry<Integer, RoundState<long[]>> e : new TreeMap<>(w.reducers).entrySet()) {
                finish(w, e.getKey(), e.getValue().endOfData(rank, period));
            }
            int all = Arrays.stream(w.reducerEnded).min().orElseThrow();
            while (w.sentClosed < all) {
                w.sentClosed++;
                sendAll(w, Kind.CLOSED, 0, 0, null, w.sentClosed, null);
                w.closedBy[w.rank] = w.sentClosed;
            }
            apply(w);
        }

        private void apply(Node w) {
            if (w.awaiting || w.frozen) {
                return;
            }
            int closedThrough = Arrays.stream(w.closedBy).min().orElseThrow();
            for (long r = w.applied.next(closedThrough); r >= 0; r = w.applied.next(closedThrough)) {
                long[] sum = w.sums.remove(r);
                update(w.value, sum);
                // A forwarded sum was made in the view its sender applied it in; any other, in this one.
                long epoch = w.sumEpoch >= 0 ? w.sumEpoch : w.epoch;
                w.sumEpoch = -1;
                w.history.add(new long[] {r, epoch});
                w.applied.applied(r);
                w.kept = sum;
                w.keptEpoch = epoch;
                trace.append(w.id).append(" applies ").append(Rounds.text(r)).append(" of view ").append(w.epoch).append('\n');
            }
        }

        private void deliver(int a, int b) {
            Frame f = links[a][b].poll();
            Node w = nodes.get(b);
            if (w.frozen || f.epoch() < w.epoch) {
                return; // a frozen worker takes nothing of its view; a later view drops the earlier ones' frames
            }
            assertEquals(w.epoch, f.epoch(), "a frame of a later view reached a worker before it installed that view");
            int fromRank = w.view.rankOf(nodes.get(a).id);
            switch (f.kind()) {
                case INIT -> {
                    if (!w.applied.started()) {
                        w.value = f.data().clone();
                        w.applied.start(0, 0);
                        apply(w);
                    }
                }
                case PUSH -> offer(w, f.chunk(), fromRank, f.round(), f.data());
                case SUM -> takeSum(w, f.chunk(), f.round(), f.data());
                case END -> reducerEnded(w, fromRank, f.period());
                case CLOSED -> {
                    w.closedBy[fromRank] = Math.max(w.closedBy[fromRank], f.period());
                    apply(w);
                }
                case FORWARD -> {
                    w.sums.put(f.round(), f.data());
                    w.sumEpoch = f.period();
                    w.applied.forwarded(f.round());
                    w.awaiting = false;
                    trace.append(w.id).append(" takes the forward of ").append(Rounds.text(f.round())).append('\n');
                    apply(w);
                }
                case STATE -> {
                    w.value = f.data().clone();
                    w.history = new ArrayList<>(f.history());
                    w.applied.recoveredTo(f.round());
                    w.kept = null;
                    w.awaiting = false;
                    trace.append(w.id).append(" takes the state as of ").append(Rounds.text(f.round())).append('\n');
                    apply(w);
                }
                default -> throw new IllegalStateException();
            }
        }

        // ------------------------------------------------------------ losses and the change

        private void lose(Node w) {
            losses++;
            w.alive = false;
            trace.append(w.id).append(" is lost\n");
            for (int b = 0; b < nodes.size(); b++) {
                ArrayDeque<Frame> q = links[w.idx][b];
                int keep = rnd.nextInt(q.size() + 1); // what it sent before it died arrives, or some of it
                while (q.size() > keep) {
                    q.pollLast();
                }
                links[b][w.idx].clear();
            }
            if (view.rankOf(w.id) >= 0) {
                lostSince.add(w.id);
            }
        }

        private void freeze(Node w) {
            w.frozen = true;
            trace.append(w.id).append(" freezes at ").append(w.applied.started() ? Rounds.text(w.applied.applied()) : "no init")
                    .append('\n');
        }

        private void decide() {
            View next = view.without(lostSince, "lost " + lostSince);
            lostSince.clear();
            List<Node> survivors = next.members().stream().map(id -> nodes.get(Integer.parseInt(id.substring(1)))).toList();
            List<ElasticRule.Report> reports = new ArrayList<>();
            for (Node w : survivors) {
                boolean started = w.applied.started();
                reports.add(new ElasticRule.Report(w.id, started ? w.applied.applied() : ElasticRule.NOT_STARTED,
                        started ? w.applied.previous() : ElasticRule.NOT_STARTED, w.kept != null, w.pushed));
            }
            ElasticRule.Decision d = ElasticRule.decide("k", reports);
            trace.append("view ").append(next.epoch()).append(' ').append(next.members()).append(": agreed ")
                    .append(d.agreed() < 0 ? "none" : Rounds.text(d.agreed())).append(' ').append(d.steps()).append('\n');
            decisions.add(new long[] {next.epoch(), d.agreed()});
            view = next;
            views.put(next.epoch(), next);
            for (Node w : survivors) {
                install(w, next, d.agreed() < 0 ? 0 : d.agreed());
                w.awaiting = d.of(w.id).action() != ElasticRule.Action.NONE;
                actions.add(d.of(w.id).action());
            }
            for (Node w : survivors) {
                ElasticRule.Step s = d.of(w.id);
                Node from = s.from() == null ? null : nodes.get(Integer.parseInt(s.from().substring(1)));
                if (s.action() == ElasticRule.Action.FORWARD) {
                    send(from, w, new Frame(next.epoch(), Kind.FORWARD, from.idx, 0, d.agreed(), from.kept, (int) from.keptEpoch,
                            null));
                } else if (s.action() == ElasticRule.Action.STATE) {
                    send(from, w, new Frame(next.epoch(), Kind.STATE, from.idx, 0, d.agreed(), from.value.clone(), 0,
                            List.copyOf(from.history)));
                }
            }
            if (d.agreed() == ElasticRule.NOT_STARTED) {
                startInit(survivors.get(0)); // no survivor holds the init: the new view's rank 0 gives it
            }
            for (Node w : survivors) {
                if (d.of(w.id).resend()) {
                    sendPush(w, w.pushed, w.pushedData);
                }
                if (w.myEnded >= 0) { // after its re-sent push, as every end of data follows the pushes before it
                    sendAll(w, Kind.END, 0, 0, null, w.myEnded, null);
                    reducerEnded(w, w.rank, w.myEnded);
                }
            }
            for (Node w : survivors) {
                apply(w);
            }
        }

        private void install(Node w, View v, long agreed) {
            w.view = v;
            w.epoch = v.epoch();
            w.rank = v.rankOf(w.id);
            w.layout = layout(v.size());
            w.reducers = new HashMap<>();
            for (int c = 0; c < w.layout.size(); c++) {
                int r = w.layout.get(c)[2];
                if (r == EVERY || r == w.rank) {
                    RoundState<long[]> rs = new RoundState<>(v.size(), false);
                    rs.ready(agreed);
                    w.reducers.put(c, rs);
                }
            }
            w.reducerEnded = new int[v.size()];
            Arrays.fill(w.reducerEnded, -1);
            w.sentClosed = -1;
            w.closedBy = new int[v.size()];
            Arrays.fill(w.closedBy, -1);
            w.sums.clear();
            w.applied = w.applied == null ? new AppliedRounds(w.layout.size()) : w.applied.changeView(w.layout.size());
            w.frozen = false;
        }

        private void startInit(Node w) {
            w.value = init.clone();
            w.applied.start(0, 0);
            sendAll(w, Kind.INIT, 0, 0, init, 0, null);
        }

        private List<int[]> layout(int n) {
            List<int[]> out = new ArrayList<>();
            if (!sliced || n == 1) {
                out.add(new int[] {0, len, EVERY});
            } else {
                for (int j = 0; j < n; j++) {
                    int from = len * j / n;
                    out.add(new int[] {from, len * (j + 1) / n - from, j});
                }
            }
            return out;
        }

        private Node nodeAt(Node w, int rank) {
            return nodes.get(Integer.parseInt(w.view.members().get(rank).substring(1)));
        }

        private void sendAll(Node w, Kind kind, int chunk, long round, long[] d, int period, List<long[]> history) {
            for (String m : w.view.members()) {
                Node to = nodes.get(Integer.parseInt(m.substring(1)));
                if (to != w) {
                    send(w, to, new Frame(w.epoch, kind, w.idx, chunk, round, d, period, history));
                }
            }
        }

        private void send(Node from, Node to, Frame f) {
            if (from.alive && to.alive) {
                links[from.idx][to.idx].add(f);
            }
        }

        // ------------------------------------------------------------ the serial model

        /** Worker {@code idx}'s push of {@code round}: fixed by the seed, the worker and the round. */
        private long[] push(Node w, long round) {
            Random r = new Random(seed * 1_000_003L + w.idx * 7919L + round);
            return data(r, len);
        }

        private void check() {
            List<Node> survivors = nodes.stream().filter(w -> w.alive).toList();
            assertTrue(lostSince.isEmpty(), "a loss was never decided");
            Node first = survivors.get(0);
            for (Node w : survivors) {
                assertEquals(w.program.size(), w.pc, w.id + " did not finish its program");
                assertTrue(!w.awaiting && w.applied.started(), w.id + " still waits for its recovery");
                assertEquals(text(first.history), text(w.history), w.id + "'s copy went through other rounds than " + first.id + "'s");
            }
            long[] model = init.clone();
            long lastRound = -1;
            long lastEpoch = 0;
            for (long[] h : first.history) {
                assertTrue(h[0] > lastRound && h[1] >= lastEpoch, "rounds out of order, or an old view's after a newer one: "
                        + text(first.history));
                lastRound = h[0];
                lastEpoch = h[1];
                long[] g = new long[len];
                boolean any = false;
                for (String m : views.get((int) h[1]).members()) {
                    Node w = nodes.get(Integer.parseInt(m.substring(1)));
                    if (w.program.contains(new Op(h[0], Rounds.period(h[0])))) {
                        long[] d = push(w, h[0]);
                        for (int i = 0; i < len; i++) {
                            g[i] += d[i];
                        }
                        any = true;
                    }
                }
                assertTrue(any, "round " + Rounds.text(h[0]) + " of view " + h[1] + " has no member's push");
                update(model, g);
            }
            for (long[] dec : decisions) {
                for (long[] h : first.history) {
                    assertTrue(h[1] >= dec[0] || h[0] <= dec[1], "round " + Rounds.text(h[0]) + " summed in view " + h[1]
                            + " comes after round " + (dec[1] < 0 ? "none" : Rounds.text(dec[1])) + ", agreed at view " + dec[0]);
                }
            }
            Set<Long> appliedRounds = new java.util.HashSet<>();
            first.history.forEach(h -> appliedRounds.add(h[0]));
            for (Node w : survivors) {
                for (Op op : w.program) {
                    assertTrue(op.round() < 0 || appliedRounds.contains(op.round()), w.id + "'s push of "
                            + Rounds.text(op.round()) + " was never applied");
                }
                assertEquals(Arrays.toString(model), Arrays.toString(w.value), w.id + "'s copy is not the serial model's");
            }
        }
    }

    private static String text(List<long[]> history) {
        StringBuilder sb = new StringBuilder();
        for (long[] h : history) {
            sb.append(Rounds.text(h[0])).append("@").append(h[1]).append(' ');
        }
        return sb.toString();
    }

    private static void update(long[] w, long[] g) {
        for (int i = 0; i < w.length; i++) {
            w[i] = Math.floorMod(w[i] * 31 + g[i], MOD);
        }
    }

    private static long[] data(Random r, int len) {
        long[] d = new long[len];
        for (int i = 0; i < len; i++) {
            d[i] = r.nextInt(1000);
        }
        return d;
    }
}
