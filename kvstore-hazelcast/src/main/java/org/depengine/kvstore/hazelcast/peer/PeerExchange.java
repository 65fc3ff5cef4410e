package org.depengine.kvstore.hazelcast.peer;

import io.netty.buffer.ByteBuf;
import java.net.InetSocketAddress;
import java.nio.FloatBuffer;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.depengine.api.CallbackOnComplete;
import org.depengine.kvstore.KVStoreException;
import org.depengine.kvstore.hazelcast.protocol.AppliedRounds;
import org.depengine.kvstore.hazelcast.protocol.RoundState;
import org.depengine.kvstore.spi.Key;
import org.depengine.kvstore.spi.Rounds;
import org.depengine.kvstore.spi.StoreStats;

/**
 * The rounds of one worker's store with {@code updateOn=worker} (MXNet's {@code update_on_kvstore=False},
 * PyTorch DDP): the store only sums, and every worker applies the updater to its own copy of every key.
 * Each chunk of a key ({@link KeyLayout}) is summed by its reducer: the worker it belongs to (its slice),
 * or every worker (a small key). A worker sends its push of a chunk to the chunk's reducers; a reducer sums a
 * round's pushes in rank order ({@link RoundState}) and sends the sum to every other worker; every worker
 * applies every round's sum to its copy in round order ({@link AppliedRounds}). So the workers' copies,
 * and the optimizer's state, are the same on every worker, and the store keeps nothing between rounds
 * that a lost member could take with it.
 *
 * <h2>The ops</h2>
 * A push's send op completes once its parts are written out (a small key's parts are copies, so at once); it
 * never waits for the round, which the pull after it does. A pull's fetch
 * op completes once this worker's copy is as of the pull's round; after a push it is at once. The op that
 * ends a period sends every other worker an END frame after this worker's pushes of the period; a worker
 * that has every rank's END of a period sends CLOSED after every sum of it it makes, so a worker that ended
 * early learns when it holds every later round of the period.
 *
 * <h2>Failures</h2>
 * A lost rank (the membership's report, or its data connection closing without a goodbye) fails every op
 * that waits and every later one, naming it. A rank that closed normally ends its part in every round; a
 * key part of whose rounds that rank summed can have no later round, and its ops fail naming it. An op that
 * sees no progress for {@code timeoutMs} fails naming what it waits for.
 *
 * <h2>Elastic jobs</h2>
 * In an elastic job the workers' views change ({@link #changeView}): a lost worker is not a failure but a
 * view without it, and {@link Recovery} carries the keys' rounds over by the rule of
 * {@link org.depengine.kvstore.hazelcast.protocol.ElasticRule}. For that, each push is copied and kept until
 * its round is applied here (a view change sends the pushes after its agreed round again, under the new view:
 * one or two rounds of a key, as a loop pushes, pulls and pushes again), and each key keeps its last applied
 * round's sum (to forward to a survivor one round behind). Frames carry the view they were sent in; ranks are
 * the view's, and the wire's peers are the workers' places ({@link #mids}: their ranks in the job's first view,
 * then the joiners' registrations). A joiner is admitted by a view change too: its copies are the job's,
 * transferred as a survivor far behind gets them, and its rounds start in the period the change gives it.
 *
 * <p>Thread-safe: one lock guards the protocol's state and orders the frames sent to each peer.
 */
public final class PeerExchange implements AutoCloseable {
    /** Keys of at most this many floats (256 KiB) send copies of their parts: the push op need not wait for the socket. */
    static final int COPIED_FLOATS = 64 * 1024;

    /** The exchanges of this process not closed yet (for tests: none is left once every store closed). */
    private static final java.util.concurrent.atomic.AtomicInteger OPEN = new java.util.concurrent.atomic.AtomicInteger();

    /** Applies a round's sum to a key's copy with the store's updater (in an op holding the key's stored variable). */
    @FunctionalInterface
    public interface Applier {
        /** Updates {@code key}'s stored value (and its updater state) from {@code sum}, the key's length. */
        void apply(Key key, FloatBuffer sum);
    }

    /** This worker's place on the wire: its rank in the job's first view, for its whole life. */
    final int mid;
    /** This worker's rank in the view installed. */
    int rank;
    /** The workers of the view installed. */
    int workers;
    /** The view installed (0 until an elastic job's first change). */
    int epoch;
    /** The places on the wire of the view installed's ranks. */
    int[] mids;
    final boolean elastic;
    /** The last period this worker ended, or -1: announced again to a new view's reducers. */
    int myEnded = -1;
    /** The period this worker's store started in (a resumed job's), for the period it reports at a view change. */
    int floorPeriod;
    /** Whether this worker waits to be admitted to a running job (a joiner before its first view is installed). */
    boolean joining;
    /** The period a joiner's rounds start in, once admitted (it ended every period before); -1 for the others. */
    int joinedAt = -1;
    final int splitFloats;
    final long timeoutMs;
    final Wire transport;
    private final PeerTransport net;
    final Map<String, PeerKey> keys = new ConcurrentHashMap<>();
    /** Per rank, the latest period it closed for this worker (every sum of it from that rank has arrived). */
    int[] closedBy;
    /** Per rank, whether it closed its store normally (it sends nothing more). */
    boolean[] saidBye;
    Reducer reducer;
    final Recovery change;
    final Outbound out;
    private final Advance advancing;
    private final InboundFrames inbound;
    /** Why the job cannot go on here, or null. */
    String lost;
    private volatile boolean closed;
    private final ScheduledFuture<?> sweeper;
    final StoreStats stats;

    /**
     * Starts this worker's transport on {@code bind}.
     *
     * @param rank this worker's rank in the job's first view; a joiner's place on the wire (the index it registered)
     * @param workers the workers of the job's first view; a joiner's: 1 until it is admitted
     * @param elastic whether the job's views may change ({@link #changeView})
     * @param joining whether this worker joins a running job: it has no view until the first view it is in is
     *     told ({@link #changeView}), and every key's copy it gets is the job's
     * @param timer runs the sweep that fails ops without progress for {@code timeoutMs}
     */
    public PeerExchange(int rank, int workers, int splitFloats, long timeoutMs, boolean elastic, boolean joining,
                        String jobId, InetSocketAddress bind, Applier applier, ScheduledExecutorService timer,
                        StoreStats stats) {
        this(rank, workers, splitFloats, timeoutMs, elastic, applier, timer, stats, in -> new PeerTransport(rank, jobId, bind, in));
        this.joining = joining;
    }

    /**
     * On the wire {@code wire} makes (given this exchange's inbound side): for the protocol's model check.
     *
     * @param elastic whether the job's views may change ({@link #changeView})
     */
    PeerExchange(int rank, int workers, int splitFloats, long timeoutMs, boolean elastic, Applier applier,
                 ScheduledExecutorService timer, StoreStats stats, java.util.function.Function<PeerTransport.Inbound, Wire> wire) {
        this.stats = stats;
        this.mid = rank;
        this.rank = workers == 1 ? 0 : rank; // a joiner is alone in its view until it is admitted
        this.workers = workers;
        this.elastic = elastic;
        this.mids = new int[workers];
        Arrays.setAll(mids, r -> r + rank - this.rank);
        this.splitFloats = splitFloats;
        this.timeoutMs = timeoutMs;
        this.closedBy = new int[workers];
        this.saidBye = new boolean[workers];
        Arrays.fill(closedBy, -1);
        this.inbound = new InboundFrames(this);
        this.transport = wire.apply(inbound);
        OPEN.incrementAndGet();
        this.net = transport instanceof PeerTransport t ? t : null;
        this.reducer = new Reducer(this, this.rank, workers);
        this.change = new Recovery(this);
        this.out = new Outbound(this);
        this.advancing = new Advance(this, applier);
        Timeouts timeouts = new Timeouts(this);
        this.sweeper = timer == null ? null : timer.scheduleWithFixedDelay(timeouts::sweep, 100, 100, TimeUnit.MILLISECONDS);
    }

    /** Bounds each view change by {@code ms}: one not installed by then fails every op here ({@link Timeouts}). */
    public void recoveryTimeout(long ms) {
        change.timeoutMs = ms;
    }

    /** Sets who is told each view this exchange installs. */
    public void onViewInstalled(ViewListener l) {
        change.listener = l;
    }

    /**
     * The store has moved to view {@code epoch} and told its listeners: the rounds of that view may be applied
     * here (none is before, so no pull sees a round of a view its listeners were not told of).
     */
    public void released(int epoch) {
        synchronized (this) {
            change.release(epoch);
        }
        advanceAll();
    }

    /** What the wire hands the frames that arrive to: for the model check's in-memory wire. */
    InboundFrames inbound() {
        return inbound;
    }

    /** The rank in the view installed of the worker at place {@code mid} on the wire, or -1 if it is not in it. */
    int rankOf(int mid) {
        if (mid < workers && mids[mid] == mid) {
            return mid; // the job's first view, or a place that kept its rank
        }
        for (int r = 0; r < workers; r++) {
            if (mids[r] == mid) {
                return r;
            }
        }
        return -1;
    }

    /** The port this worker's transport listens on. */
    public int port() {
        return net.port();
    }

    /**
     * Connects to the transports of the workers at places {@code addresses} (by place on the wire), each bounded
     * by {@code connectTimeoutMs}; a place this worker is connected to already, or its own, is skipped.
     */
    public void connect(Map<Integer, InetSocketAddress> addresses, long connectTimeoutMs) {
        addresses.forEach((m, a) -> {
            if (m != mid && !net.connected(m)) {
                net.connect(m, a, connectTimeoutMs);
            }
        });
    }

    /** Whether this worker has a connection to the worker at place {@code m} on the wire (or is it). */
    public boolean connected(int m) {
        return m == mid || net == null || net.connected(m);
    }

    /** A resumed job's store starts in {@code period}: the period this worker is in until it ends one. */
    public void startsIn(int period) {
        synchronized (this) {
            floorPeriod = period;
        }
    }

    // ------------------------------------------------------------------ the ops

    /** Round 0 of {@code k}: rank 0 sends its value (and a resumed key's state) to every other worker, which take it. */
    public void init(Key k, CallbackOnComplete done) {
        synchronized (this) {
            PeerKey pk = keyOf(k.name(), k.length());
            if (pk.layout.length() != k.length()) {
                done.fail(failure(k.name(), "init", "rank(s) pushed " + pk.layout.length() + " floats before this init of "
                        + k.length()));
                return;
            }
            pk.key = k;
            // During a view change rank 0 waits like the others (the new view's rank 0 gives the init), and after
            // one it waits for the state it was told it would get.
            if ((rank == 0 || workers == 1) && joinedAt < 0 && !joining && !change.frozen() && !pk.recovering) {
                out.init(pk);
            } else {
                pk.waiter = new PeerKey.Waiter(-1, Integer.MIN_VALUE, done, "init (rank 0's value)");
                if (!change.frozen()) { // a change's report stands: the view installed gives the init
                    pk.takeInit();
                }
                String why = refusal(pk);
                if (why != null && !satisfied(pk)) {
                    // A loss known before this key existed: rank 0's value may never come (the exchange's loss
                    // fails every op that waits, whichever key it is on).
                    pk.waiter = null;
                    done.fail(failure(k.name(), "init (rank 0's value)", why));
                    return;
                }
            }
            if (pk.waiter == null) {
                done.complete();
                return;
            }
        }
        advance(k.name());
    }

    /**
     * This worker's push of {@code round}: to every reducer of every chunk (a copy of each part this worker
     * sums itself, the others straight from the pushed buffer); done once they are written out. It never
     * waits for the round: the pull that follows does (the no-wait contract: a push never waits for
     * another worker). It applies the rounds whose sums are here already, in order. In an elastic job the
     * push is copied first and kept until its round is applied here: a view change may need it sent again.
     */
    public void send(Key k, long round, CallbackOnComplete done) {
        synchronized (this) {
            PeerKey pk = keys.get(k.name());
            String why = refusal(pk);
            if (why != null) {
                done.fail(failure(k.name(), "push of round " + Rounds.text(round), why));
                return;
            }
            PeerKey.Waiter w = new PeerKey.Waiter(0, Integer.MIN_VALUE, done, "push of round " + Rounds.text(round));
            pk.waiter = w;
            pk.pushedAt.put(round, System.nanoTime());
            ByteBuf kept = null;
            if (elastic) {
                kept = pk.take(k.length() * Float.BYTES).writeBytes(k.mergedBytes());
                pk.open.put(round, kept);
            }
            if (!change.frozen()) { // else the view change sends it, under the new view
                out.parts(pk, round, w, kept);
            }
        }
        advance(k.name());
    }

    /** This worker's push of {@code round} was skipped: every reducer gets an empty part; the round's sum comes as any. */
    public void skipped(Key k, long round, CallbackOnComplete done) {
        synchronized (this) {
            PeerKey pk = keys.get(k.name());
            if (pk != null && lost == null) {
                if (elastic) {
                    pk.skips.add(round);
                }
                if (!change.frozen()) {
                    out.skip(pk, round);
                }
            }
        }
        done.complete();
    }

    /** This worker's copy of {@code k} as of {@code round}: done at once after this worker's push of it. */
    public void fetch(Key k, long round, CallbackOnComplete done) {
        synchronized (this) {
            PeerKey pk = keys.get(k.name());
            if (round == 0 && pk.joined) {
                round = Rounds.of(k.initPeriod(), 0); // a joiner's init is the job's value as of its first period
            }
            int closed = Rounds.index(round) == 0 ? Rounds.period(round) - 1 : Integer.MIN_VALUE;
            long need = Rounds.index(round) == 0 ? 0 : round;
            if (!pk.recovering && pk.applied.reached(need, closed, closedThrough())) {
                done.complete();
                return;
            }
            String why = refusal(pk);
            if (why != null) {
                done.fail(failure(k.name(), "pull of round " + Rounds.text(round), why));
                return;
            }
            pk.waiter = new PeerKey.Waiter(need, closed, done, "pull of round " + Rounds.text(round));
        }
        advance(k.name());
    }

    /** This worker has no more data in {@code period}: every other worker is told, after its pushes of it. */
    public void endPeriod(int period, CallbackOnComplete done) {
        synchronized (this) {
            myEnded = Math.max(myEnded, period);
            if (!change.frozen()) { // else the view change announces it, under the new view
                out.toOthers(Frame.end(rank, period));
                reducer.ended(rank, period);
            }
        }
        advanceAll();
        done.complete();
    }

    /** This worker leaves normally: every other worker is told it sends nothing more. */
    public void leave() {
        synchronized (this) {
            out.toOthers(Frame.bye(rank));
        }
    }

    /**
     * The job's view changed (an elastic job): view {@code epoch} has the workers whose places on the wire
     * are {@code mids}, in rank order. Views are told in epoch order on every worker; the rounds of every key
     * are carried over by {@link Recovery}, and the ops waiting go on under the new view.
     *
     * @throws IllegalStateException if the exchange is not elastic, or this worker is not in the view
     */
    public void changeView(int epoch, int[] mids) {
        synchronized (this) {
            if (!elastic) {
                throw new IllegalStateException("rank " + rank + ": a job that is not elastic has one view");
            }
            change.begin(epoch, mids);
        }
        advanceAll();
    }

    /** Rank {@code r} is lost: every op that waits, and every later one, fails naming it. */
    public void lost(int r, String why) {
        synchronized (this) {
            if (saidBye[r]) {
                return;
            }
        }
        failAll(why);
    }

    /** Every op that waits, and every later one, fails with {@code why} (the job cannot go on for this worker). */
    public void failAll(String why) {
        Map<PeerKey.Waiter, String> failed = new java.util.HashMap<>();
        synchronized (this) {
            if (lost != null) {
                return;
            }
            lost = why;
            notifyAll(); // a barrier waiting (awaitClosed) fails too
            for (PeerKey pk : keys.values()) {
                if (pk.waiter != null && !satisfied(pk)) {
                    failed.put(pk.waiter, pk.layout.key());
                    pk.waiter = null;
                }
            }
        }
        failed.forEach((w, key) -> w.done.fail(failure(key, w.what, why)));
    }

    // ------------------------------------------------------------------ applying

    /**
     * An elastic job's barrier: waits until every worker of the view installed has ended {@code period} and
     * every round of it is summed ({@link #closedThrough}), across view changes ({@link PeriodWait}).
     *
     * @throws KVStoreException if the job cannot go on here, or nothing moved for {@code timeoutMs}
     * @throws InterruptedException if the waiting thread is interrupted
     */
    public void awaitClosed(int period, String what) throws InterruptedException {
        new PeriodWait(this, period, what).await();
    }

    /** The latest period every rank has closed for this worker: every sum of it and before has arrived. */
    int closedThrough() {
        int min = Integer.MAX_VALUE;
        for (int c : closedBy) {
            min = Math.min(min, c);
        }
        return min;
    }

    /** Why an op on {@code pk} cannot go on, or null. */
    private String refusal(PeerKey pk) {
        if (lost != null) {
            return lost;
        }
        return pk.broken;
    }

    /** Whether the op that waits on {@code pk} has what it waits for. */
    boolean satisfied(PeerKey pk) {
        PeerKey.Waiter w = pk.waiter;
        // A copy behind a view change's agreed round reaches nothing until what it is sent arrives.
        return w != null && w.writes == 0 && !pk.recovering && pk.applied.reached(w.round, w.closedPeriod, closedThrough());
    }

    void written(PeerKey pk, PeerKey.Waiter w) {
        synchronized (this) {
            w.writes--;
        }
        advance(pk.layout.key());
    }

    void advanceAll() {
        for (String k : keys.keySet()) {
            advance(k);
        }
    }

    /**
     * Applies the rounds the waiting op of {@code name} may apply, in order, one thread at a time per key (the
     * updater runs outside the lock), then completes the op if it has what it waits for ({@link Advance}).
     */
    void advance(String name) {
        PeerKey pk = keys.get(name);
        if (pk != null) {
            advancing.run(pk);
        }
    }

    static void release(ByteBuf b) {
        if (b != null) {
            b.release();
        }
    }

    PeerKey keyOf(String key, int length) {
        return keys.computeIfAbsent(key, k -> new PeerKey(new KeyLayout(k, length, workers, splitFloats),
                joining || joinedAt >= 0));
    }

    KVStoreException failure(String key, String what, String cause) {
        return new KVStoreException(key, rank, what + ": " + cause, null);
    }

    /** The exchanges of this process that are open: for tests of what a closed store leaves. */
    public static int open() {
        return OPEN.get();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        OPEN.decrementAndGet();
        if (sweeper != null) {
            sweeper.cancel(false);
        }
        transport.close();
        synchronized (this) {
            keys.values().forEach(PeerKey::release);
            change.release();
        }
    }
}
