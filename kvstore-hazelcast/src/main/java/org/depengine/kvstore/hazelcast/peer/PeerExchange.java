package org.depengine.kvstore.hazelcast.peer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.depengine.api.CallbackOnComplete;
import org.depengine.kvstore.KVStoreException;
import org.depengine.kvstore.hazelcast.protocol.AppliedRounds;
import org.depengine.kvstore.hazelcast.protocol.RoundState;
import org.depengine.kvstore.hazelcast.protocol.Sums;
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

    private final int rank;

    final int workers;
    private final int splitFloats;
    final long timeoutMs;
    private final Applier applier;
    final Wire transport;
    private final PeerTransport net;
    final Map<String, PeerKey> keys = new ConcurrentHashMap<>();
    /** Per rank, the latest period it closed for this worker (every sum of it from that rank has arrived). */
    final int[] closedBy;
    /** Per rank, whether it closed its store normally (it sends nothing more). */
    final boolean[] saidBye;
    final Reducer reducer;
    private final InboundFrames inbound;
    private String lost;
    private volatile boolean closed;
    private final ScheduledFuture<?> sweeper;
    final StoreStats stats;

    /**
     * Starts this worker's transport on {@code bind}.
     *
     * @param timer runs the sweep that fails ops without progress for {@code timeoutMs}
     */
    public PeerExchange(int rank, int workers, int splitFloats, long timeoutMs, String jobId, InetSocketAddress bind,
                        Applier applier, ScheduledExecutorService timer, StoreStats stats) {
        this(rank, workers, splitFloats, timeoutMs, applier, timer, stats, in -> new PeerTransport(rank, jobId, bind, in));
    }

    /** On the wire {@code wire} makes (given this exchange's inbound side): for the protocol's model check. */
    PeerExchange(int rank, int workers, int splitFloats, long timeoutMs, Applier applier, ScheduledExecutorService timer,
                 StoreStats stats, java.util.function.Function<PeerTransport.Inbound, Wire> wire) {
        this.stats = stats;
        this.rank = rank;
        this.workers = workers;
        this.splitFloats = splitFloats;
        this.timeoutMs = timeoutMs;
        this.applier = applier;
        this.closedBy = new int[workers];
        this.saidBye = new boolean[workers];
        Arrays.fill(closedBy, -1);
        this.inbound = new InboundFrames(this);
        this.transport = wire.apply(inbound);
        OPEN.incrementAndGet();
        this.net = transport instanceof PeerTransport t ? t : null;
        this.reducer = new Reducer(this, rank, workers);
        Timeouts timeouts = new Timeouts(this);
        this.sweeper = timer == null ? null : timer.scheduleWithFixedDelay(timeouts::sweep, 100, 100, TimeUnit.MILLISECONDS);
    }

    /** What the wire hands the frames that arrive to: for the model check's in-memory wire. */
    PeerTransport.Inbound inbound() {
        return inbound;
    }

    /** This worker's rank. */
    int rank() {
        return rank;
    }

    /** The port this worker's transport listens on. */
    public int port() {
        return net.port();
    }

    /** Connects to every other rank's transport ({@code addresses} by rank), each bounded by {@code timeoutMs}. */
    public void connect(Map<Integer, InetSocketAddress> addresses, long connectTimeoutMs) {
        addresses.forEach((r, a) -> {
            if (r != rank) {
                net.connect(r, a, connectTimeoutMs);
            }
        });
    }

    // ------------------------------------------------------------------ the ops

    /** Round 0 of {@code k}: rank 0 sends its value (and a resumed key's state) to every other worker, which take it. */
    public void init(Key k, CallbackOnComplete done) {
        ByteBuf payload = null;
        synchronized (this) {
            PeerKey pk = keyOf(k.name(), k.length());
            if (pk.layout.length() != k.length()) {
                done.fail(failure(k.name(), "init", "rank(s) pushed " + pk.layout.length() + " floats before this init of "
                        + k.length()));
                return;
            }
            pk.key = k;
            if (rank == 0 || workers == 1) {
                pk.applied.start(k.initRound(), k.initPeriod());
                float[] state = k.stateCopy();
                int stateFloats = state.length / k.length();
                Frame f = Frame.init(k.name(), k.length(), stateFloats, k.steps(), k.initRound());
                if (workers > 1) {
                    payload = PeerTransport.alloc().directBuffer(f.payloadBytes());
                    payload.writeBytes(k.storedBytes());
                    ByteBuffer st = ByteBuffer.allocate(state.length * Float.BYTES).order(ByteOrder.nativeOrder());
                    st.asFloatBuffer().put(state);
                    payload.writeBytes(st);
                    for (int r = 0; r < workers; r++) {
                        if (r != rank) {
                            stats.sent(payload.readableBytes());
                            transport.send(r, f, SharedView.toRead(payload, 0, payload.readableBytes()));
                        }
                    }
                }
            } else {
                pk.waiter = new PeerKey.Waiter(-1, Integer.MIN_VALUE, done, "init (rank 0's value)");
                pk.takeInit();
                String why = refusal(pk);
                if (why != null && !satisfied(pk)) {
                    // A loss known before this key existed: rank 0's value may never come (the exchange's loss
                    // fails every op that waits, whichever key it is on).
                    pk.waiter = null;
                    done.fail(failure(k.name(), "init (rank 0's value)", why));
                    return;
                }
            }
        }
        if (rank != 0 && workers > 1) {
            advance(k.name());
            return;
        }
        if (payload != null) {
            payload.release();
        }
        done.complete();
    }

    /**
     * This worker's push of {@code round}: to every reducer of every chunk (a copy of each part this worker
     * sums itself, the others straight from the pushed buffer); done once they are written out. It never
     * waits for the round: the pull that follows does (the no-wait contract: a push never waits for
     * another worker). It applies the rounds whose sums are here already, in order.
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
            ByteBuffer merged = k.mergedBytes();
            w.writes++; // held until every part is handed over, so the op cannot complete in between
            for (KeyLayout.Chunk c : pk.layout.chunks()) {
                for (int r = 0; r < workers; r++) {
                    if (!c.reducedBy(r)) {
                        continue;
                    }
                    ByteBuffer bytes = merged.duplicate().position(c.offset() * Float.BYTES)
                            .limit((c.offset() + c.count()) * Float.BYTES).slice();
                    if (r == rank) {
                        ByteBuf copy = pk.take(bytes.remaining());
                        copy.writeBytes(bytes);
                        reducer.offer(pk, c, rank, round, new PeerKey.Slot(
                                copy.nioBuffer().order(ByteOrder.nativeOrder()).asFloatBuffer(), copy), false);
                    } else if (!saidBye[r]) {
                        stats.sent(bytes.remaining());
                        Frame f = Frame.push(rank, round, k.name(), k.length(), c.offset(), c.count());
                        if (k.length() <= COPIED_FLOATS) {
                            // A small key's part is copied, and the op completes at once: waiting for the socket
                            // (an event loop's turn) cost a small round more than its bytes.
                            transport.send(r, f, PeerTransport.alloc().directBuffer(bytes.remaining()).writeBytes(bytes));
                        } else {
                            w.writes++; // the pushed buffer stays the op's until written: no copy of a large key
                            transport.send(r, f, Unpooled.wrappedBuffer(bytes), () -> written(pk, w));
                        }
                    }
                }
            }
            w.writes--;
        }
        advance(k.name());
    }

    /** This worker's push of {@code round} was skipped: every reducer gets an empty part; the round's sum comes as any. */
    public void skipped(Key k, long round, CallbackOnComplete done) {
        synchronized (this) {
            PeerKey pk = keys.get(k.name());
            if (pk != null && lost == null) {
                for (KeyLayout.Chunk c : pk.layout.chunks()) {
                    for (int r = 0; r < workers; r++) {
                        if (c.reducedBy(r)) {
                            if (r == rank) {
                                reducer.offer(pk, c, rank, round, null, true);
                            } else {
                                transport.send(r, Frame.push(rank, round, k.name(), k.length(), c.offset(), -1), null);
                            }
                        }
                    }
                }
            }
        }
        done.complete();
    }

    /** This worker's copy of {@code k} as of {@code round}: done at once after this worker's push of it. */
    public void fetch(Key k, long round, CallbackOnComplete done) {
        synchronized (this) {
            PeerKey pk = keys.get(k.name());
            int closed = Rounds.index(round) == 0 ? Rounds.period(round) - 1 : Integer.MIN_VALUE;
            long need = Rounds.index(round) == 0 ? 0 : round;
            if (pk.applied.reached(need, closed, closedThrough())) {
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
            for (int r = 0; r < workers; r++) {
                if (r != rank) {
                    transport.send(r, Frame.end(rank, period), null);
                }
            }
            reducer.ended(rank, period);
        }
        advanceAll();
        done.complete();
    }

    /** This worker leaves normally: every other worker is told it sends nothing more. */
    public void leave() {
        synchronized (this) {
            for (int r = 0; r < workers; r++) {
                if (r != rank) {
                    transport.send(r, Frame.bye(rank), null);
                }
            }
        }
    }

    /** Rank {@code r} is lost: every op that waits, and every later one, fails naming it. */
    public void lost(int r, String why) {
        Map<PeerKey.Waiter, String> failed = new java.util.HashMap<>();
        synchronized (this) {
            if (lost != null || saidBye[r]) {
                return;
            }
            lost = why;
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

    /** The latest period every rank has closed for this worker: every sum of it and before has arrived. */
    int closedThrough() {
        int min = Integer.MAX_VALUE;
        for (int c : closedBy) {
            min = Math.min(min, c);
        }
        return min;
    }

    void arrived(PeerKey pk, long round) {
        pk.applied.arrived(round);
        if (pk.waiter != null) {
            pk.waiter.since = System.nanoTime();
        }
    }

    /** Why an op on {@code pk} cannot go on, or null. */
    private String refusal(PeerKey pk) {
        if (lost != null) {
            return lost;
        }
        return pk.broken;
    }

    /** Whether the op that waits on {@code pk} has what it waits for. */
    private boolean satisfied(PeerKey pk) {
        PeerKey.Waiter w = pk.waiter;
        return w != null && w.writes == 0 && pk.applied.reached(w.round, w.closedPeriod, closedThrough());
    }

    private void written(PeerKey pk, PeerKey.Waiter w) {
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
     * Applies the rounds the waiting op of {@code name} may apply, in order, one thread at a time per key
     * (the updater runs outside the lock), then completes the op if it has what it waits for.
     */
    void advance(String name) {
        PeerKey pk = keys.get(name);
        if (pk == null) {
            return;
        }
        while (true) {
            PeerKey.Waiter complete = null;
            PeerKey.RoundSum sum;
            long round;
            synchronized (this) {
                if (pk.applying || pk.key == null || pk.waiter == null) {
                    return;
                }
                round = pk.applied.next(closedThrough());
                if (round < 0) {
                    if (!satisfied(pk)) {
                        return;
                    }
                    complete = pk.waiter;
                    pk.waiter = null;
                    sum = null;
                } else {
                    sum = pk.sums.remove(round);
                    pk.applying = true;
                }
            }
            if (complete != null) {
                complete.done.complete();
                return;
            }
            RuntimeException failed = null;
            try {
                if (sum.hasData) {
                    applier.apply(pk.key, sum.floats(0, pk.layout.length()));
                }
            } catch (RuntimeException e) {
                failed = e;
            }
            PeerKey.Waiter w;
            synchronized (this) {
                pk.give(sum.buf);
                pk.applied.applied(round);
                pk.applying = false;
                Long pushed = pk.pushedAt.remove(round);
                if (pushed != null) {
                    stats.roundLatency(System.nanoTime() - pushed);
                }
                w = failed == null ? null : pk.waiter;
                if (w != null) {
                    pk.waiter = null;
                    pk.broken = failed.getMessage();
                }
            }
            stats.roundCompleted();
            if (w != null) {
                w.done.fail(failed);
                return;
            }
        }
    }

    static void release(ByteBuf b) {
        if (b != null) {
            b.release();
        }
    }

    PeerKey keyOf(String key, int length) {
        return keys.computeIfAbsent(key, k -> new PeerKey(new KeyLayout(k, length, workers, splitFloats)));
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
        }
    }
}
