package org.depengine.kvstore.hazelcast.client;

import com.hazelcast.core.EntryEvent;
import com.hazelcast.map.IMap;
import com.hazelcast.map.listener.EntryAddedListener;
import com.hazelcast.map.listener.EntryUpdatedListener;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.depengine.kvstore.KVStoreException;
import org.depengine.kvstore.hazelcast.hz.CallbackThreads;
import org.depengine.kvstore.hazelcast.hz.KeyState;
import org.depengine.kvstore.hazelcast.hz.ReadOp;
import org.depengine.kvstore.hazelcast.hz.Reply;

/**
 * The reads of a {@link ShardedTable} that wait for their round: each is re-issued on every entry event
 * of its chunk (this class is the table's entry listener) until the owner answers with the value or an
 * error, or until the key showed no progress for the timeout. Event-driven, with a backstop: every
 * {@value #RECHECK_MS} ms a waiting read is re-issued too (Hazelcast drops events when its event queue
 * is full), and the read at the deadline is the last: a dropped event never fails a read that could
 * succeed. A read that completes
 * leaves nothing behind: it leaves its chunk's list (the timer's one periodic task looks at the reads in
 * those lists), so its value is held only by its caller. Thread-safe.
 */
final class PendingReads implements EntryAddedListener<String, KeyState>, EntryUpdatedListener<String, KeyState> {
    /** Builds the failure of a read, naming the key, the call and the cause. */
    @FunctionalInterface
    interface Failure {
        KVStoreException of(String key, String what, String cause);
    }

    /** How often a waiting read is re-issued without an event, at most. */
    static final long RECHECK_MS = 1000;
    /** How often the waiting reads are looked at for a due recheck: the precision of the rechecks and timeouts. */
    static final long SWEEP_MS = 100;

    private final IMap<String, KeyState> map;
    private final ScheduledExecutorService timer;
    private final Failure failure;
    private final Supplier<String> closedBecause;
    private final Map<String, List<Waiter>> waiters = new ConcurrentHashMap<>();
    /**
     * Per chunk, the state its latest value-carrying event brought that no waiting read took: a pull that
     * starts after its event (its rank was told because its push left the round pending) answers from it.
     * At most one per chunk of at most {@link KeyState#VALUE_EVENT_FLOATS}; taken by the read it answers.
     */
    private final Map<String, KeyState> told = new ConcurrentHashMap<>();

    /**
     * @param map the table's map, read by entry processors on the keys' owners
     * @param timer runs the periodic rechecks and timeouts of the waiting reads (one task); a read started
     *     after it shut down fails at once
     * @param failure builds a read's failure
     * @param closedBecause why the table is closed, or null while it is open
     */
    PendingReads(IMap<String, KeyState> map, ScheduledExecutorService timer, Failure failure,
            Supplier<String> closedBecause) {
        this.map = map;
        this.timer = timer;
        this.failure = failure;
        this.closedBecause = closedBecause;
        timer.scheduleWithFixedDelay(this::sweep, SWEEP_MS, SWEEP_MS, TimeUnit.MILLISECONDS);
    }

    /**
     * Starts reading {@code chunkKey} with {@code op} until it is ready.
     *
     * @return completes with the owner's answer (the chunk's value and its round), or exceptionally with
     *     the {@link Failure}'s exception
     */
    CompletableFuture<Reply> read(String chunkKey, ReadOp op, String key, String what, Duration timeout) {
        return read(chunkKey, op, key, what, timeout, false);
    }

    /**
     * As {@link #read(String, ReadOp, String, String, Duration)}; {@code told}: the owner has marked this
     * rank waiting for the read's round already (its push left the round pending), so the change that
     * completes it sends this worker its event, and the read waits for that event (or a state an event
     * brought before it started) instead of asking the owner first.
     */
    CompletableFuture<Reply> read(String chunkKey, ReadOp op, String key, String what, Duration timeout, boolean told) {
        Waiter w = new Waiter(chunkKey, op, key, what, timeout);
        w.start(told);
        return w.future;
    }

    /**
     * The timer's one periodic task (every {@value #SWEEP_MS} ms) re-reads the waiting reads whose recheck
     * is due: one task for all reads, rather than one scheduled per read, whose scheduling and
     * cancelling would wake the timer thread at every pull.
     */
    private void sweep() {
        long now = System.nanoTime();
        for (List<Waiter> list : waiters.values()) {
            for (Waiter w : list) {
                w.recheckIfDue(now);
            }
        }
    }

    /** Fails every read still waiting with {@code cause}, and drops the states kept from events. */
    void failAll(String cause) {
        told.clear();
        for (List<Waiter> list : waiters.values()) {
            for (Waiter w : list) {
                w.fail(cause);
            }
        }
    }

    @Override
    public void entryAdded(EntryEvent<String, KeyState> e) {
        wake(e.getKey(), e.getValue());
    }

    @Override
    public void entryUpdated(EntryEvent<String, KeyState> e) {
        wake(e.getKey(), e.getValue());
    }

    /**
     * An entry event of the table, for this worker's rank: a waiting read of that chunk may be ready now. An
     * event of a small chunk carries the state as of that change, and a read it makes ready takes its answer
     * from it; otherwise (or if the state does not make it ready: that change was another's) the read is
     * re-issued, which also marks the rank waiting again on the owner.
     */
    private void wake(String chunkKey, KeyState state) {
        if (state != null) {
            told.put(chunkKey, state); // before the waiters are scanned: a read that starts now finds one or the other
        }
        boolean taken = false;
        List<Waiter> list = waiters.get(chunkKey);
        if (list != null) {
            for (Waiter w : list) {
                w.touch();
                if (state != null && w.answerFrom(state, false)) {
                    taken = true;
                } else {
                    w.attempt();
                }
            }
        }
        if (taken) {
            told.remove(chunkKey, state);
        }
    }

    /** A read that waits for its round: re-issued on each entry event of its key until it is ready. */
    private final class Waiter {
        final String chunkKey;
        final ReadOp op;
        final String key;
        final String what;
        final Duration timeout;
        final CompletableFuture<Reply> future = new CompletableFuture<>();
        private boolean inFlight;
        private boolean dirty;
        /** The deadline has passed: a read that finds no progress fails. */
        private boolean lastChance;
        private String lastWhy = "no answer yet";
        /**
         * An event's state may answer this read: its rank was marked waiting by its push, or the owner has
         * answered it NOT_READY. Only then is a state that answers it newer than the read's start (rounds,
         * the init and failures only go forward): an event sent before the read began, and delivered
         * after, never gives it an older value than the owner would.
         */
        private boolean marked;
        private long deadline;
        /** When {@link #sweep()} re-reads this read next (a backstop for dropped events); guarded by this. */
        private long nextCheck;

        Waiter(String chunkKey, ReadOp op, String key, String what, Duration timeout) {
            this.chunkKey = chunkKey;
            this.op = op;
            this.key = key;
            this.what = what;
            this.timeout = timeout;
        }

        void start(boolean marked) {
            synchronized (this) {
                this.marked = marked;
            }
            // Registered before the first read: an update between that read and the registration would be missed.
            waiters.computeIfAbsent(chunkKey, k -> new CopyOnWriteArrayList<>()).add(this);
            touch();
            synchronized (this) {
                nextCheck = System.nanoTime() + recheckNanos();
            }
            future.whenComplete((v, e) -> {
                List<Waiter> list = waiters.get(chunkKey);
                if (list != null) {
                    list.remove(this); // nothing else holds the waiter (so the value) once it is done
                }
            });
            if (timer.isShutdown()) {
                fail(closedBecause.get() == null ? "the store is closing" : closedBecause.get());
                return;
            }
            KeyState early = marked ? told.get(chunkKey) : null;
            if (early != null && answerFrom(early, true)) {
                told.remove(chunkKey, early);
            } else if (!marked) {
                attempt();
            }
        }

        /**
         * Completes this read from {@code state}, a copy of its chunk's state that an event brought, if it
         * answers it: with the value, or (unless {@code readyOnly}: a state kept from an earlier event) with
         * the error that keeps the round from completing. False if the read must ask the owner.
         */
        boolean answerFrom(KeyState state, boolean readyOnly) {
            synchronized (this) {
                if (!marked || !op.answerableFromEvents()) {
                    return false;
                }
            }
            Reply reply = state.answer(op);
            if (reply.status() == Reply.Status.OK) {
                future.complete(reply);
                return true;
            }
            if (reply.status() == Reply.Status.ERROR && !readyOnly) {
                fail(reply.message());
                return true;
            }
            return false;
        }

        synchronized String lastWhy() {
            return lastWhy;
        }

        /** A sign of progress on the key: the timeout counts from here. */
        synchronized void touch() {
            deadline = System.nanoTime() + timeout.toNanos();
        }

        /** How often this read is re-read without an event: {@value #RECHECK_MS} ms, or its timeout if shorter. */
        private long recheckNanos() {
            return TimeUnit.MILLISECONDS.toNanos(Math.max(1, Math.min(RECHECK_MS, timeout.toMillis())));
        }

        /** From {@link PendingReads#sweep()}: re-reads if this read's recheck is due. */
        void recheckIfDue(long now) {
            synchronized (this) {
                if (future.isDone() || now - nextCheck < 0) {
                    return;
                }
                nextCheck = now + recheckNanos();
            }
            recheck();
        }

        /**
         * Reads again, as an event would: Hazelcast drops entry events when its event queue is full, and a
         * read that waited only for events would then fail at the timeout though its round completed.
         * Past the deadline this is the last read: if it is still not ready, the read fails.
         */
        private void recheck() {
            synchronized (this) {
                if (future.isDone()) {
                    return;
                }
                lastChance = System.nanoTime() - deadline >= 0;
            }
            attempt();
        }

        void attempt() {
            synchronized (this) {
                if (future.isDone()) {
                    return;
                }
                if (inFlight) {
                    dirty = true; // read again when this one answers: the key changed meanwhile
                    return;
                }
                inFlight = true;
            }
            String closed = closedBecause.get();
            if (closed != null) {
                fail(closed);
                return;
            }
            CallbackThreads.submitToKey(map, chunkKey, op).whenCompleteAsync((reply, err) -> {
                boolean again;
                boolean expired = false;
                synchronized (this) {
                    inFlight = false;
                    again = dirty;
                    dirty = false;
                    if (reply != null && reply.status() == Reply.Status.NOT_READY) {
                        marked = true;
                        if (!reply.message().equals(lastWhy)) {
                            deadline = System.nanoTime() + timeout.toNanos(); // progress seen without its event
                            lastChance = false;
                        }
                        lastWhy = reply.message();
                        expired = lastChance && !again;
                    }
                }
                if (err != null) {
                    fail(err.toString());
                } else if (reply.status() == Reply.Status.OK) {
                    future.complete(reply);
                } else if (reply.status() == Reply.Status.ERROR) {
                    fail(reply.message());
                } else if (expired) {
                    fail("no progress on the key for " + timeout.toMillis() + " ms: " + lastWhy());
                } else if (again) {
                    attempt();
                }
            }, CallbackThreads.ON_RESPONSE_THREAD);
        }

        void fail(String cause) {
            future.completeExceptionally(failure.of(key, what, cause));
        }
    }
}
