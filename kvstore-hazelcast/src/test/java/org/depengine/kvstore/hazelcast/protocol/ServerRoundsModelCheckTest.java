package org.depengine.kvstore.hazelcast.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.depengine.kvstore.Updater;
import org.depengine.kvstore.spi.Rounds;
import org.junit.jupiter.api.Test;

/**
 * The model check of the rounds where a key lives ({@code updateOn=server}): a {@link RoundState} and its
 * {@link UpdatedValue} fed each rank's contributions (pushes, skipped pushes, ends of data) in that rank's
 * order but interleaved at random across ranks, each contribution sometimes delivered twice (a retried
 * call), the init anywhere among them; the value, state and update count must equal a serial model that
 * applies each round's rank-order sum with the updater in round order, bit for bit. 2,000 seeds; 20,000
 * with {@code -Ddepengine.test.long=true}.
 */
class ServerRoundsModelCheckTest {
    private record Event(int rank, String kind, long round, float[] data) {
    }

    @Test
    void everyInterleavingAndRetryGivesTheSerialModelsValues() {
        int seeds = Boolean.getBoolean("depengine.test.long") ? 20_000 : 2_000;
        for (long seed = 1; seed <= seeds; seed++) {
            run(seed);
        }
    }

    private static void run(long seed) {
        Random rnd = new Random(seed);
        int n = 1 + rnd.nextInt(4);
        int len = 1 + rnd.nextInt(4);
        Updater u = switch (rnd.nextInt(4)) {
            case 0 -> Updater.sum();
            case 1 -> Updater.sgd(0.5f);
            case 2 -> Updater.sgd(0.25f, 0.9f, 0.01f, 1f);
            default -> Updater.adam(0.125f);
        };
        float[] init = ints(rnd, len);
        List<List<Event>> perRank = new ArrayList<>();
        List<List<float[][]>> rounds = new ArrayList<>(); // [period] -> rounds' parts by rank
        int periods = 1 + rnd.nextInt(3);
        for (int p = 0; p < periods; p++) {
            rounds.add(new ArrayList<>());
        }
        for (int r = 0; r < n; r++) {
            List<Event> ev = new ArrayList<>();
            for (int p = 0; p < periods; p++) {
                int pushes = rnd.nextInt(4);
                for (int i = 1; i <= pushes; i++) {
                    boolean skip = rnd.nextInt(5) == 0;
                    float[] data = skip ? null : ints(rnd, len);
                    ev.add(new Event(r, skip ? "skip" : "push", Rounds.of(p, i), data));
                    List<float[][]> rs = rounds.get(p);
                    while (rs.size() < i) {
                        rs.add(new float[n][]);
                    }
                    rs.get(i - 1)[r] = skip ? new float[0] : data;
                }
                ev.add(new Event(r, "end", p, null));
            }
            perRank.add(ev);
        }
        // The serial model.
        UpdatedValue model = new UpdatedValue(init.clone(), new float[0], 0);
        for (List<float[][]> rs : rounds) {
            for (float[][] parts : rs) {
                List<float[]> data = new ArrayList<>();
                for (float[] part : parts) {
                    if (part != null && part.length > 0) {
                        data.add(part);
                    }
                }
                if (!data.isEmpty()) {
                    model.apply(u, "k", Sums.of(data));
                }
            }
        }
        // The state, fed at random.
        RoundState<float[]> s = new RoundState<>(n, false);
        UpdatedValue v = null;
        int[] next = new int[n];
        boolean inited = false;
        List<RoundState.Completed<float[]>> early = new ArrayList<>();
        while (true) {
            List<Integer> ready = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                if (next[r] < perRank.get(r).size()) {
                    ready.add(r);
                }
            }
            if (ready.isEmpty() && inited) {
                break;
            }
            if (!inited && (ready.isEmpty() || rnd.nextInt(4) == 0)) {
                v = new UpdatedValue(init.clone(), new float[0], 0);
                inited = true;
                early.addAll(s.ready(0));
            } else {
                int r = ready.get(rnd.nextInt(ready.size()));
                Event e = perRank.get(r).get(next[r]);
                if (rnd.nextInt(5) != 0) { // else: delivered again below, as a retry would be
                    next[r]++;
                }
                early.addAll(switch (e.kind()) {
                    case "push" -> s.offer(r, e.round(), e.data());
                    case "skip" -> s.skip(r, e.round());
                    default -> s.endOfData(r, (int) e.round());
                });
            }
            if (v != null) {
                for (RoundState.Completed<float[]> c : early) {
                    if (!c.slots().isEmpty()) {
                        v.apply(u, "k", Sums.of(c.slots()));
                    }
                }
                early.clear();
            }
        }
        assertEquals(List.of(), early, "seed " + seed);
        assertArrayEquals(model.value(), v.value(), "seed " + seed + ": the value");
        assertArrayEquals(model.state(), v.state(), "seed " + seed + ": the updater's state");
        assertEquals(model.steps(), v.steps(), "seed " + seed + ": the update count");
        assertEquals(false, s.hasPending(), "seed " + seed + ": every round completed");
    }

    private static float[] ints(Random rnd, int n) {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = rnd.nextInt(41) - 20;
        }
        return a;
    }
}
