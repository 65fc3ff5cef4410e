package org.depengine.testkit;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * A random program for the workers of one store, made of the calls the no-wait contract covers
 * ({@code init}, {@code push}, {@code pull}, {@code pushPull}, {@code endOfData}, {@code barrier}), and a
 * serial model of the values each of its pulls may give, with {@link org.depengine.kvstore.Updater#sum()}
 * as the updater. The model follows from the rounds each call decides when it is made, so it holds
 * whether the program runs with no waits or with a wait after every call.
 *
 * <p>Periods are separated by barriers. Keys 0 and 1 are initialised at the start of period 0, key 2 at
 * the start of period 1 (every worker initialises every key at the same point, as the API asks). A
 * worker may call {@code endOfData()} once per period; it makes no push after it.
 *
 * <p>Synchronous stores ({@code local}, {@code dist_sync}): a pull reads round (period, i), i the
 * worker's pushes of the key so far in the period: the value after that round, whose sum holds the
 * i-th push of the period of every worker that made one; i = 0 reads the value after every earlier
 * period. After its {@code endOfData()}, a worker's pull may also see later rounds of the period (the
 * others go on without it), so the model allows each of them. A program in which a pull would wait for
 * ever with a wait after every call (it needs a push that another worker makes only after a pull of its
 * own that waits for this worker) is not valid; {@link #generate} drops such pulls, found by running the
 * program with waits in the model.
 *
 * <p>Asynchronous stores ({@code dist_async}): a pull sees every earlier push of its worker and, of each
 * other worker, some prefix of that worker's pushes of the key, so the model allows every such sum.
 */
final class NoWaitProgram {
    /** What a call does. */
    enum Kind { INIT, PUSH, PULL, PUSH_PULL, END_OF_DATA, BARRIER }

    /**
     * One call of one worker.
     *
     * @param data the value of an INIT, PUSH or PUSH_PULL (whole numbers: every sum is exact)
     */
    record Call(Kind kind, int key, float[] data, int priority) {
    }

    /** The keys' lengths. */
    static final int[] LENGTHS = {2, 5, 3};
    /** The period each key is initialised in. */
    private static final int[] INIT_PERIOD = {0, 0, 1};
    private static final int PERIODS = 3;

    private final int workers;
    private final boolean sync;
    private final List<List<Call>> calls = new ArrayList<>();

    private NoWaitProgram(int workers, boolean sync) {
        this.workers = workers;
        this.sync = sync;
    }

    /**
     * A program of {@code workers} workers from {@code seed}, valid for a synchronous ({@code sync}) or
     * an asynchronous store.
     */
    static NoWaitProgram generate(long seed, int workers, boolean sync) {
        Random rnd = new Random(seed);
        NoWaitProgram p = new NoWaitProgram(workers, sync);
        for (int w = 0; w < workers; w++) {
            p.calls.add(new ArrayList<>());
        }
        for (int period = 0; period < PERIODS; period++) {
            for (int w = 0; w < workers; w++) {
                List<Call> cs = p.calls.get(w);
                for (int k = 0; k < LENGTHS.length; k++) {
                    if (INIT_PERIOD[k] == period) {
                        cs.add(new Call(Kind.INIT, k, ints(rnd, LENGTHS[k]), 0));
                    }
                }
                boolean ended = false;
                for (int step = 4 + rnd.nextInt(8); step > 0; step--) {
                    int k = rnd.nextInt(period == 0 ? 2 : LENGTHS.length);
                    int prio = rnd.nextInt(5) - 2;
                    int dice = rnd.nextInt(20);
                    if (ended || dice < 6) {
                        cs.add(new Call(Kind.PULL, k, null, prio));
                    } else if (dice < 15) {
                        cs.add(new Call(Kind.PUSH, k, ints(rnd, LENGTHS[k]), prio));
                    } else if (dice < 19) {
                        cs.add(new Call(Kind.PUSH_PULL, k, ints(rnd, LENGTHS[k]), prio));
                    } else {
                        cs.add(new Call(Kind.END_OF_DATA, -1, null, 0));
                        ended = true;
                    }
                }
                cs.add(new Call(Kind.BARRIER, -1, null, 0));
            }
        }
        if (sync && workers > 1) {
            while (p.dropAPullThatWouldWaitForEver()) {
                // run again with the waits the dropped pull caused gone
            }
        }
        return p;
    }

    /** The number of workers. */
    int workers() {
        return workers;
    }

    /** Worker {@code w}'s calls, in call order. */
    List<Call> calls(int w) {
        return calls.get(w);
    }

    // ------------------------------------------------------------------ the program run with waits

    /**
     * Runs the program in the model with a wait after every call (a pull waits for its round, a barrier
     * for every worker); if it gets stuck, drops one waiting pull (a pushPull keeps its push) and says so.
     */
    private boolean dropAPullThatWouldWaitForEver() {
        int[] pc = new int[workers];
        int[][] pushes = new int[workers][LENGTHS.length]; // in the current period
        boolean[] ended = new boolean[workers];
        while (true) {
            boolean progressed = false;
            for (int w = 0; w < workers; w++) {
                while (pc[w] < calls.get(w).size() && mayRun(w, calls.get(w).get(pc[w]), pc, pushes, ended)) {
                    Call c = calls.get(w).get(pc[w]++);
                    if (c.kind() == Kind.PUSH || c.kind() == Kind.PUSH_PULL) {
                        pushes[w][c.key()]++;
                    } else if (c.kind() == Kind.END_OF_DATA) {
                        ended[w] = true;
                    }
                    progressed = true;
                }
            }
            boolean allDone = true;
            boolean allAtBarrier = true;
            for (int w = 0; w < workers; w++) {
                allDone &= pc[w] == calls.get(w).size();
                allAtBarrier &= atBarrier(w, pc);
            }
            if (allDone) {
                return false;
            }
            if (allAtBarrier) {
                for (int w = 0; w < workers; w++) {
                    pc[w]++;
                    Arrays.fill(pushes[w], 0);
                    ended[w] = false;
                }
                progressed = true;
            }
            if (!progressed) {
                for (int w = 0; w < workers; w++) {
                    if (!atBarrier(w, pc)) {
                        Call c = calls.get(w).get(pc[w]);
                        if (c.kind() == Kind.PULL) {
                            calls.get(w).remove(pc[w]);
                        } else {
                            calls.get(w).set(pc[w], new Call(Kind.PUSH, c.key(), c.data(), c.priority()));
                        }
                        return true;
                    }
                }
                throw new AssertionError("every worker waits at a barrier yet they are not released");
            }
        }
    }

    private boolean atBarrier(int w, int[] pc) {
        return pc[w] < calls.get(w).size() && calls.get(w).get(pc[w]).kind() == Kind.BARRIER;
    }

    /** Whether worker {@code w}'s next call {@code c} returns now (with a wait after it). */
    private boolean mayRun(int w, Call c, int[] pc, int[][] pushes, boolean[] ended) {
        int round = switch (c.kind()) {
            case PULL -> pushes[w][c.key()];
            case PUSH_PULL -> pushes[w][c.key()] + 1;
            case BARRIER -> -1;
            default -> 0;
        };
        if (round <= 0) {
            return round == 0;
        }
        for (int o = 0; o < workers; o++) {
            if (o != w && pushes[o][c.key()] < round && !ended[o] && !atBarrier(o, pc)) {
                return false; // round `round` waits for worker o's push or its end of the period
            }
        }
        return true;
    }

    // ------------------------------------------------------------------ the model

    /**
     * For each PULL and PUSH_PULL of worker {@code w}, in call order: the values its pull may give (one
     * for a synchronous store unless the worker signalled its end of data before it).
     */
    List<List<float[]>> expectedPulls(int w) {
        List<List<float[]>> out = new ArrayList<>();
        int period = 0;
        int[] own = new int[LENGTHS.length]; // this period (sync) or in all (async)
        boolean ended = false;
        for (Call c : calls.get(w)) {
            switch (c.kind()) {
                case PUSH -> own[c.key()]++;
                case PUSH_PULL -> {
                    own[c.key()]++;
                    out.add(allowed(w, c.key(), period, own[c.key()], ended));
                }
                case PULL -> out.add(allowed(w, c.key(), period, own[c.key()], ended));
                case END_OF_DATA -> ended = true;
                case BARRIER -> {
                    period++;
                    ended = false;
                    if (sync) {
                        Arrays.fill(own, 0);
                    }
                }
                default -> {
                }
            }
        }
        return out;
    }

    /** The key's value once every push of the program has landed. */
    float[] finalValue(int key) {
        float[] v = initValue(key);
        for (int w = 0; w < workers; w++) {
            for (float[] d : pushes(w, key, -1)) {
                add(v, d);
            }
        }
        return v;
    }

    private List<float[]> allowed(int w, int key, int period, int round, boolean ended) {
        List<float[]> out = new ArrayList<>();
        if (sync) {
            int last = ended ? roundsOf(key, period) : round;
            for (int r = round; r <= Math.max(round, last); r++) {
                out.add(valueAfter(key, period, r));
            }
            return out;
        }
        float[] base = initValue(key);
        List<float[]> mine = pushes(w, key, -1);
        for (int i = 0; i < round; i++) {
            add(base, mine.get(i));
        }
        out.add(base);
        for (int o = 0; o < workers; o++) {
            if (o == w) {
                continue;
            }
            List<float[]> next = new ArrayList<>();
            for (float[] partial : out) {
                float[] v = partial.clone();
                next.add(v.clone());
                for (float[] d : pushes(o, key, -1)) {
                    add(v, d);
                    next.add(v.clone());
                }
            }
            out = next;
        }
        return out;
    }

    /** Synchronous: the value after round {@code r} of {@code period} (r = 0: after every earlier period). */
    private float[] valueAfter(int key, int period, int r) {
        float[] v = initValue(key);
        for (int p = 0; p <= period; p++) {
            for (int w = 0; w < workers; w++) {
                List<float[]> ps = pushes(w, key, p);
                for (int i = 0; i < ps.size() && (p < period || i < r); i++) {
                    add(v, ps.get(i));
                }
            }
        }
        return v;
    }

    /** The rounds of {@code period} for the key: the most pushes any worker made in it. */
    private int roundsOf(int key, int period) {
        int most = 0;
        for (int w = 0; w < workers; w++) {
            most = Math.max(most, pushes(w, key, period).size());
        }
        return most;
    }

    /** Worker {@code w}'s pushes of the key in {@code period} (-1: in every period), in call order. */
    private List<float[]> pushes(int w, int key, int period) {
        List<float[]> out = new ArrayList<>();
        int p = 0;
        for (Call c : calls.get(w)) {
            if (c.kind() == Kind.BARRIER) {
                p++;
            } else if ((c.kind() == Kind.PUSH || c.kind() == Kind.PUSH_PULL) && c.key() == key
                    && (period < 0 || p == period)) {
                out.add(c.data());
            }
        }
        return out;
    }

    /** Rank 0's init value: the stored one. */
    private float[] initValue(int key) {
        for (Call c : calls.get(0)) {
            if (c.kind() == Kind.INIT && c.key() == key) {
                return c.data().clone();
            }
        }
        throw new AssertionError("key " + key + " is never initialised");
    }

    private static void add(float[] acc, float[] x) {
        for (int i = 0; i < acc.length; i++) {
            acc[i] += x[i];
        }
    }

    private static float[] ints(Random rnd, int n) {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = rnd.nextInt(2001) - 1000;
        }
        return a;
    }
}
