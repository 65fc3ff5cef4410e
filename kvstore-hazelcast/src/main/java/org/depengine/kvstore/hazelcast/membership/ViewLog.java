package org.depengine.kvstore.hazelcast.membership;

import com.hazelcast.core.EntryEvent;
import com.hazelcast.map.IMap;
import com.hazelcast.map.listener.EntryAddedListener;
import com.hazelcast.map.listener.EntryUpdatedListener;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import org.depengine.kvstore.KVStoreException;
import org.depengine.kvstore.hazelcast.hz.ListenerRemovals;
import org.depengine.kvstore.hazelcast.protocol.View;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An elastic job's sequence of views ({@code docs/elastic-design.md}, section 2), kept in the job's
 * {@code shared} map: the installed view under {@value #VIEW}, and every installed epoch {@code e} under
 * {@code view.<e>} (the history: a worker that missed an epoch reads it there). Values are
 * {@link ViewText}s. Step 3's first part: the store does not use it yet.
 *
 * <p>How a view is installed. Epoch {@code e} is decided by whoever first writes {@code view.<e>}
 * ({@code putIfAbsent}), which a proposer does only after it read that the view it expects ({@code e-1}) is
 * the installed one; it is published by the atomic {@code IMap.replace(view, e-1, e)} of exactly that
 * history entry, which any proposer of {@code e} may make (a proposer that lost the history entry helps the
 * winner's view in, then adopts it). So two proposers never both win, an installed epoch's history entry
 * exists before its event can be seen, and the history only ever holds installed views or the one view
 * that is about to be (the history entry of an epoch is never changed once written).
 *
 * <p>Delivery. {@link #listen} listeners get every installed epoch after their starting point exactly once,
 * in epoch order, never skipping one, on the executor given at construction, one delivery at a time (for
 * all the listeners of this log together). Hazelcast's events only say which epoch is installed now; the
 * views between the last one delivered and that one are read from the history.
 *
 * <p>Thread-safe.
 */
public final class ViewLog implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ViewLog.class);
    /** The key of the installed view in the job's {@code shared} map. */
    static final String VIEW = "view";
    /** The prefix of the history's keys: {@code view.<epoch>} → that epoch's view. */
    static final String HISTORY = "view.";

    private final IMap<String, String> shared;
    private final String self;
    private final Executor events;
    private final List<Subscriber> subscribers = new CopyOnWriteArrayList<>();
    /** Guards {@link #known}, {@link #pumping}, {@link #again} and {@link #closed}. */
    private final Object lock = new Object();
    /** Guards the registration of the map listener (a remote call: not under {@link #lock}). */
    private final Object registering = new Object();
    /** The highest installed epoch this log has heard of, or -1. */
    private int known = -1;
    /** Whether a delivery pass is running or queued on {@link #events}. */
    private boolean pumping;
    /** Whether something changed while a pass was running: it runs once more. */
    private boolean again;
    private boolean closed;
    private UUID registration;
    /** This worker's rank in the last view it started, proposed or delivered, or -1: for messages only. */
    private volatile int rank = -1;

    /**
     * A log over {@code shared}; it listens to nothing until the first {@link #listen}.
     *
     * @param shared the job's {@code shared} map ({@code depengine.kv.<job id>.shared})
     * @param self this worker's member id (its endpoint UUID), as it appears in the views: names its rank
     *     in messages
     * @param events runs the deliveries (off Hazelcast's event threads); it may have several threads, the
     *     log still delivers one view at a time
     */
    public ViewLog(IMap<String, String> shared, String self, Executor events) {
        this.shared = shared;
        this.self = self;
        this.events = events;
    }

    /**
     * Installs {@code first} as the job's view 0 unless a view 0 is installed already, and returns the view
     * 0 installed: of workers that start at the same time, each gets the same view 0, whichever was first.
     * A worker that starts later gets the job's view 0 too, not the current view (see {@link #current}).
     *
     * @throws IllegalArgumentException if {@code first}'s epoch is not 0, or it has a member id
     *     {@link ViewText} cannot write
     */
    public View start(View first) {
        if (first.epoch() != 0) {
            throw new IllegalArgumentException("a job starts at view 0, not " + first.epoch() + ": " + first);
        }
        String mine = ViewText.encode(first);
        String claimed = shared.putIfAbsent(HISTORY + 0, mine);
        String zero = claimed == null ? mine : claimed;
        shared.putIfAbsent(VIEW, zero);
        View v = claimed == null ? first : ViewText.decode(claimed);
        rank = v.rankOf(self);
        if (claimed == null) {
            LOG.info("{}: view 0 installed: members {} ({})", shared.getName(), v.members(), v.cause());
        }
        return v;
    }

    /**
     * The view installed now, as the job's map holds it (one map read).
     *
     * @throws IllegalStateException if no view is installed (no worker started the log)
     */
    public View current() {
        String now = shared.get(VIEW);
        if (now == null) {
            throw new IllegalStateException("no view is installed in '" + shared.getName() + "': start the log first");
        }
        return ViewText.decode(now);
    }

    /**
     * Proposes {@code next} to follow {@code expected}, on behalf of the workers in {@code side} (those this
     * worker can still reach, itself included), and returns the view installed now. {@code next} is
     * installed if {@code expected} is the installed view and no other proposal of {@code next}'s epoch
     * came first; otherwise the view returned is the one this proposer must adopt: the other proposal of
     * that epoch (this call helps it in if it was not yet), or, if {@code expected} is not the installed
     * view (stale, or not the job's), the installed one, unchanged.
     *
     * @throws IllegalArgumentException if {@code next}'s epoch is not {@code expected}'s plus one, or it
     *     has a member id {@link ViewText} cannot write
     * @throws KVStoreException if {@code side} does not hold {@code expected}'s quorum ({@link View#heldBy}):
     *     "cut off from the job: this side has k of n workers", naming the ranks lost; nothing is written
     * @throws IllegalStateException if no view is installed (no worker started the log)
     */
    public View propose(View expected, View next, Collection<String> side) {
        return propose(expected, next, side, true);
    }

    /**
     * {@link #propose(View, View, Collection)}, with the quorum rule or without it. Embedded mode (the
     * workers are the cluster's members) needs it: a cut splits the cluster in two, each half sees the other
     * lost, and only the side that holds {@code expected}'s quorum may go on. Client mode (the workers are
     * clients of a separate cluster) does not: the cluster is the arbiter (a cut client only loses its
     * connection, is reported lost by the members and can write nothing), so the survivors need no majority
     * and {@code byMajority} is false.
     *
     * @param byMajority whether {@code side} must hold {@code expected}'s quorum ({@link #requireQuorum})
     * @throws IllegalArgumentException if {@code next}'s epoch is not {@code expected}'s plus one, or it
     *     has a member id {@link ViewText} cannot write
     * @throws KVStoreException if {@code byMajority} and {@code side} does not hold {@code expected}'s
     *     quorum; nothing is written
     * @throws IllegalStateException if no view is installed (no worker started the log)
     */
    public View propose(View expected, View next, Collection<String> side, boolean byMajority) {
        if (next.epoch() != expected.epoch() + 1) {
            throw new IllegalArgumentException("view " + next.epoch() + " cannot follow view " + expected.epoch()
                    + ": a proposed view's epoch is one more than the view it expects");
        }
        if (byMajority) {
            requireQuorum(expected, side);
        }
        String old = ViewText.encode(expected);
        String mine = ViewText.encode(next);
        String now = shared.get(VIEW);
        if (now == null) {
            throw new IllegalStateException("no view is installed in '" + shared.getName() + "': start the log first");
        }
        if (!now.equals(old)) {
            View found = ViewText.decode(now);
            LOG.debug("{}: view {} proposed from view {} lost: view {} is installed", shared.getName(), next.epoch(),
                    expected.epoch(), found.epoch());
            return adopted(found);
        }
        // The history entry first: whoever writes it decides the epoch, and it exists before its event is seen.
        String claimed = shared.putIfAbsent(HISTORY + next.epoch(), mine);
        String install = claimed == null ? mine : claimed;
        if (shared.replace(VIEW, old, install)) {
            View v = claimed == null ? next : ViewText.decode(claimed);
            LOG.info("{}: view {} installed: members {} ({}){}", shared.getName(), v.epoch(), v.members(), v.cause(),
                    claimed == null ? "" : "; another worker proposed it first, this one proposed " + next.members());
            return adopted(v);
        }
        return adopted(current()); // another worker published the epoch (or more) meanwhile
    }

    /** {@code v}, which this worker now follows: its rank is noted and the listeners are woken. */
    private View adopted(View v) {
        rank = v.rankOf(self);
        kick(v.epoch());
        return v;
    }

    /**
     * Checks that the workers in {@code side} (those this worker can still reach, itself included) may
     * install the view after {@code expected} ({@link View#heldBy}): a worker that is not the proposer
     * checks it too, so every worker of a side cut off from the job learns it, not only its proposer.
     *
     * @throws KVStoreException if they may not: "cut off from the job: this side has k of n workers of view
     *     e (ranks [...]); it lost contact with ranks [r (member id), ...]. ..."
     */
    public void requireQuorum(View expected, Collection<String> side) {
        if (!expected.heldBy(side)) {
            throw cutOff(expected, side);
        }
    }

    private KVStoreException cutOff(View expected, Collection<String> side) {
        Set<String> reached = new HashSet<>(side);
        List<Integer> held = new ArrayList<>();
        List<String> lost = new ArrayList<>();
        for (int r = 0; r < expected.size(); r++) {
            String m = expected.members().get(r);
            if (reached.contains(m)) {
                held.add(r);
            } else {
                lost.add(r + " (member " + m + ")");
            }
        }
        return new KVStoreException(null, expected.rankOf(self), "cut off from the job: this side has " + held.size()
                + " of " + expected.size() + " workers of view " + expected.epoch() + " (ranks " + held
                + "); it lost contact with ranks " + lost + ". A view may be installed only by a strict majority of "
                + "the view before, or exactly half of it with its rank 0; this worker can come back only as a "
                + "joiner", null);
    }

    /**
     * Calls {@code l} with every view installed after view 0, exactly once each, in epoch order: the epochs
     * installed already at once (from the history), then each one as it is installed. The same as
     * {@code listen(0, l)}.
     *
     * @throws IllegalStateException if the log is closed
     */
    public void listen(Consumer<View> l) {
        listen(0, l);
    }

    /**
     * Calls {@code l} with every view of epoch greater than {@code after}, exactly once each, in epoch
     * order, none skipped: those installed already at once (read from the history), then each one as it is
     * installed, whatever order and grouping Hazelcast's events have. Calls run on the log's executor, one
     * at a time for all its listeners, never on Hazelcast's event threads; one that throws is logged and
     * counts as delivered. Pass the epoch of the view this worker follows now to get only the changes after
     * it.
     *
     * @throws IllegalArgumentException if {@code after} is negative
     * @throws IllegalStateException if the log is closed
     */
    public void listen(int after, Consumer<View> l) {
        if (after < 0) {
            throw new IllegalArgumentException("a listener starts after an epoch (at least 0), not after " + after);
        }
        synchronized (registering) {
            synchronized (lock) {
                if (closed) {
                    throw new IllegalStateException("the view log of '" + shared.getName() + "' is closed");
                }
            }
            if (registration == null) {
                // Before reading the installed view: an epoch installed after the read is then seen by an event.
                registration = shared.addEntryListener(new Events(), VIEW, true);
            }
            subscribers.add(new Subscriber(after + 1, l));
        }
        String now = shared.get(VIEW);
        kick(now == null ? -1 : ViewText.decode(now).epoch());
    }

    /**
     * Stops listening (the map listener is removed) and delivering; a delivery running now finishes.
     * Idempotent. The map and the executor are the caller's.
     */
    @Override
    public void close() {
        synchronized (registering) {
            synchronized (lock) {
                closed = true;
            }
            subscribers.clear();
            UUID id = registration;
            registration = null;
            if (id != null) {
                ListenerRemovals.removeEach(LOG, rank, () -> shared.removeEntryListener(id));
            }
        }
    }

    /** Epoch {@code epoch} is installed: runs a delivery pass unless one is running, which then runs again. */
    private void kick(int epoch) {
        synchronized (lock) {
            known = Math.max(known, epoch);
            if (closed || subscribers.isEmpty()) {
                return;
            }
            if (pumping) {
                again = true;
                return;
            }
            pumping = true;
        }
        try {
            events.execute(this::pump);
        } catch (RejectedExecutionException e) {
            synchronized (lock) {
                pumping = false;
            }
            LOG.debug("{}: view {} not delivered: the executor refused the delivery ({})", shared.getName(), epoch,
                    e.toString());
        }
    }

    /** Delivery passes, one at a time (only one is ever running or queued), until nothing changed meanwhile. */
    private void pump() {
        try {
            for (;;) {
                int target;
                synchronized (lock) {
                    if (closed) {
                        return;
                    }
                    again = false;
                    target = known;
                }
                deliverThrough(target);
                synchronized (lock) {
                    if (!again) {
                        return;
                    }
                }
            }
        } catch (RuntimeException e) {
            // A map read failed (the instance is shutting down, the map was destroyed): the next event retries.
            LOG.warn("{}: delivering the views installed: {}", shared.getName(), e.toString());
        } finally {
            synchronized (lock) {
                pumping = false;
            }
        }
    }

    /** Delivers every epoch up to {@code target} each listener has not had yet, in epoch order. */
    private void deliverThrough(int target) {
        int from = Integer.MAX_VALUE;
        for (Subscriber s : subscribers) {
            from = Math.min(from, s.next);
        }
        for (int e = from; e <= target; e++) {
            View v = null;
            for (Subscriber s : subscribers) {
                if (s.next != e) {
                    continue; // starts later, or was added during this pass (the next pass has it)
                }
                if (v == null) {
                    v = history(e);
                    rank = v.rankOf(self);
                }
                synchronized (lock) {
                    if (closed) {
                        return;
                    }
                }
                s.deliver(v);
            }
        }
    }

    /** Installed epoch {@code e}'s view, from the history. */
    private View history(int e) {
        String text = shared.get(HISTORY + e);
        if (text == null) {
            throw new IllegalStateException("view " + e + " is installed but its history entry '" + HISTORY + e
                    + "' is missing from '" + shared.getName() + "'");
        }
        View v = ViewText.decode(text);
        if (v.epoch() != e) {
            throw new IllegalStateException("history entry '" + HISTORY + e + "' of '" + shared.getName()
                    + "' holds view " + v.epoch());
        }
        return v;
    }

    /**
     * One listener and the next epoch it is owed. {@link #next} is read and written only by delivery passes,
     * which run one at a time and are ordered by {@link #lock}.
     */
    private final class Subscriber {
        private final Consumer<View> listener;
        private int next;

        Subscriber(int next, Consumer<View> listener) {
            this.next = next;
            this.listener = listener;
        }

        void deliver(View v) {
            next = v.epoch() + 1;
            try {
                listener.accept(v);
            } catch (RuntimeException e) {
                LOG.warn("{}: a view listener threw on view {}", shared.getName(), v.epoch(), e);
            }
        }
    }

    /** Hazelcast's events on the {@value #VIEW} key: only which epoch is installed now is taken from them. */
    private final class Events implements EntryAddedListener<String, String>, EntryUpdatedListener<String, String> {
        @Override
        public void entryAdded(EntryEvent<String, String> e) {
            seen(e.getValue());
        }

        @Override
        public void entryUpdated(EntryEvent<String, String> e) {
            seen(e.getValue());
        }

        private void seen(String text) {
            try {
                kick(ViewText.decode(text).epoch());
            } catch (IllegalArgumentException bad) {
                LOG.warn("{}: the installed view cannot be read: {}", shared.getName(), bad.getMessage());
            }
        }
    }
}
