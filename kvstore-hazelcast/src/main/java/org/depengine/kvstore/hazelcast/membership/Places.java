package org.depengine.kvstore.hazelcast.membership;

import com.hazelcast.core.EntryEvent;
import com.hazelcast.map.IMap;
import com.hazelcast.map.listener.EntryAddedListener;
import com.hazelcast.map.listener.EntryRemovedListener;
import com.hazelcast.map.listener.EntryUpdatedListener;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.depengine.kvstore.hazelcast.protocol.View;

/**
 * Who holds each place of an elastic job, from its {@code ranks} map: a place is a worker's rank in the job's
 * first view, or, after them, a joiner's registration ({@link Joining}). A place is a worker's name on the data
 * transport for its whole life, and a loss is reported by place. A registered place that is in no view yet, and
 * whose worker neither closed, withdrew nor is lost, is a joiner to admit. Thread-safe.
 */
final class Places implements AutoCloseable {
    private final IMap<Integer, String> ranks;
    private final int firstSize;
    private final Runnable onRegistered;
    private final Map<Integer, String> ids = new ConcurrentHashMap<>();
    /** Places whose workers closed their store, or withdrew before a view admitted them. */
    private final Set<Integer> gone = ConcurrentHashMap.newKeySet();
    private volatile UUID listener;

    /**
     * Reads and follows {@code ranks}.
     *
     * @param firstSize the job's first view's size: places from it on are joiners'
     * @param onRegistered told (on Hazelcast's event thread: hand it off) each time a place is registered
     */
    Places(IMap<Integer, String> ranks, int firstSize, Runnable onRegistered) {
        this.ranks = ranks;
        this.firstSize = firstSize;
        this.onRegistered = onRegistered;
    }

    /** Starts following the map: after this, every registration is known here. */
    void follow() {
        listener = ranks.addEntryListener(new Events(), true);
        ranks.forEach(this::registered); // after the listener: a registration is in the read or in an event
    }

    /** The member id at {@code place}, or null if it is not registered. */
    String idOf(int place) {
        return ids.get(place);
    }

    /** The place of member {@code id}, or -1; read from the map if its event has not come here yet (a view may). */
    int placeOf(String id) {
        for (int pass = 0; pass < 2; pass++) {
            for (Map.Entry<Integer, String> e : ids.entrySet()) {
                if (e.getValue().equals(id)) {
                    return e.getKey();
                }
            }
            ranks.forEach(this::registered);
        }
        return -1;
    }

    /**
     * The joiners the view after {@code from} may admit: registered after the first view's ranks, in no view yet
     * ({@code from}'s members and {@code lost} excluded), neither closed nor withdrawn; in their places' order,
     * at most {@code room}.
     */
    List<String> joiners(View from, Collection<String> lost, int room) {
        List<String> found = new ArrayList<>();
        new TreeMap<>(ids).forEach((place, id) -> {
            if (place >= firstSize && !gone.contains(place) && !lost.contains(id) && from.rankOf(id) < 0) {
                found.add(id);
            }
        });
        return found.subList(0, Math.max(0, Math.min(found.size(), room)));
    }

    /** The cause an admission by member {@code by} gives: who joins, by their places. */
    String admission(List<String> joiners, String by) {
        StringBuilder sb = new StringBuilder();
        for (String id : joiners) {
            sb.append(sb.length() == 0 ? "" : "; ").append("worker ").append(placeOf(id)).append(" (member ").append(id)
                    .append(") joins");
        }
        return sb.append("; admitted by member ").append(by).toString();
    }

    private void registered(int place, String id) {
        if (id.startsWith(JobMembership.CLOSED)) {
            gone.add(place);
            id = id.substring(JobMembership.CLOSED.length());
        }
        ids.put(place, id);
    }

    /** Stops following the map. Idempotent. */
    @Override
    public void close() {
        UUID id = listener;
        listener = null;
        if (id != null) {
            ranks.removeEntryListener(id);
        }
    }

    private final class Events implements EntryAddedListener<Integer, String>, EntryUpdatedListener<Integer, String>,
            EntryRemovedListener<Integer, String> {
        @Override
        public void entryAdded(EntryEvent<Integer, String> e) {
            registered(e.getKey(), e.getValue());
            onRegistered.run();
        }

        @Override
        public void entryUpdated(EntryEvent<Integer, String> e) {
            registered(e.getKey(), e.getValue()); // closed
        }

        @Override
        public void entryRemoved(EntryEvent<Integer, String> e) {
            gone.add(e.getKey()); // a joiner that could not open withdrew
        }
    }
}
