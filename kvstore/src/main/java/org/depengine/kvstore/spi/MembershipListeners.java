package org.depengine.kvstore.spi;

import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import org.depengine.kvstore.KVStore;
import org.depengine.kvstore.MembershipChange;
import org.depengine.kvstore.MembershipListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A store's {@link MembershipListener}s, in registration order, and their calls
 * ({@link AbstractKVStore#membershipChanged}). Thread-safe: registrations and removals may come from any
 * thread, a listener included, while a change is delivered.
 */
final class MembershipListeners {
    private static final Logger LOG = LoggerFactory.getLogger(MembershipListeners.class);

    /** Copy on write: a delivery walks a snapshot, so a listener may register or remove during it. */
    private final CopyOnWriteArrayList<Entry> entries = new CopyOnWriteArrayList<>();
    /** Orders deliveries, so that no two overlap and the epoch check below sees the last one. */
    private final Object deliveries = new Object();
    /** The epoch last delivered; 0 before the first (epochs start at 1). Guarded by {@link #deliveries}. */
    private int lastEpoch;
    /** Guarded by {@code this}: set by {@link #close()}, after which a registration is inert. */
    private boolean closed;

    /** Registers {@code listener} at the end of the order; after {@link #close()}, returns a registration that is never called. */
    synchronized KVStore.Registration add(MembershipListener listener) {
        Entry e = new Entry(listener);
        if (!closed) {
            entries.add(e);
        }
        return e;
    }

    /** Removes every registration, for good: the store is closed. */
    synchronized void close() {
        closed = true;
        entries.clear();
    }

    /**
     * Calls every listener with {@code change} on this thread, in registration order, logging what one
     * throws and going on with the next.
     *
     * @param rank what the store's {@code rank()} answers now
     * @param numWorkers what the store's {@code numWorkers()} answers now
     * @throws IllegalStateException if {@code change} is not of an epoch after the last one delivered, or the
     *     store does not answer its rank and number of workers yet (the store's fault, not a listener's)
     */
    void deliver(MembershipChange change, int rank, int numWorkers, String store) {
        Objects.requireNonNull(change, "change");
        if (change.rank() != rank || change.numWorkers() != numWorkers) {
            throw new IllegalStateException(store + " delivers the change to view " + change.epoch() + " (rank "
                    + change.rank() + " of " + change.numWorkers() + ") while it answers rank " + rank + " of "
                    + numWorkers + ": a store moves to the view before its listeners are told");
        }
        synchronized (deliveries) {
            // The first one delivered may be any epoch (a joiner's); a view replaced before this worker moved to it
            // is not delivered on its own (the next change carries its departures).
            if (change.epoch() <= lastEpoch) {
                throw new IllegalStateException(store + " delivers the change to view " + change.epoch() + " after view "
                        + lastEpoch + ": changes are delivered in epoch order, at most once per view");
            }
            lastEpoch = change.epoch();
            for (Entry e : entries) {
                try {
                    e.listener.changed(change);
                } catch (RuntimeException | Error t) { // a listener's failure stays its own: the store and the others go on
                    LOG.error("{}: membership listener {} threw on the change to view {} (rank {} of {}); the store and "
                            + "its other listeners go on", store, e.listener.getClass().getName(), change.epoch(),
                            change.rank(), change.numWorkers(), t);
                }
            }
        }
    }

    /** One registration: removing it removes this entry only (entries compare by identity). */
    private final class Entry implements KVStore.Registration {
        final MembershipListener listener;

        Entry(MembershipListener listener) {
            this.listener = listener;
        }

        @Override
        public void remove() {
            entries.remove(this);
        }
    }
}
