package org.depengine.kvstore.local;

import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.depengine.api.CallbackOnComplete;
import org.depengine.api.Engine;
import org.depengine.kvstore.KVStoreException;
import org.depengine.kvstore.KVStoreSettings;
import org.depengine.kvstore.spi.AbstractKVStore;
import org.depengine.kvstore.spi.Key;

/**
 * A test stand-in for a distributed {@code dist_sync} store, in one JVM: the "server" is a shared
 * object, and every call completes from another thread, as a network callback would. It checks that
 * {@link AbstractKVStore}'s seam carries what a distributed store needs (sync rounds, a versioned
 * init, end of data, barriers, timeouts) and runs the multi-worker cases of the conformance suite.
 */
final class InMemorySyncStore extends AbstractKVStore {

    /** The shared state of one "cluster". */
    static final class Server implements AutoCloseable {
        final int workers;
        final ScheduledExecutorService network = Executors.newScheduledThreadPool(2, r -> {
            Thread t = new Thread(r, "in-memory-network");
            t.setDaemon(true);
            return t;
        });
        final CyclicBarrier barrier;
        private final Map<String, Entry> entries = new HashMap<>();
        /** Each key's highest round pushed by any worker, exchanged at barriers. */
        private final Map<String, Long> pushedRounds = new HashMap<>();
        private final boolean[] ended;

        Server(int workers) {
            this.workers = workers;
            this.barrier = new CyclicBarrier(workers);
            this.ended = new boolean[workers];
        }

        synchronized Entry entry(String key, int length) {
            return entries.computeIfAbsent(key, k -> new Entry(length));
        }

        synchronized void endOfData(int rank) {
            ended[rank] = true;
            for (Entry e : entries.values()) {
                e.tryComplete(this);
            }
        }

        synchronized void reportRound(String key, long round) {
            pushedRounds.merge(key, round, Math::max);
        }

        synchronized long maxRound(String key) {
            return pushedRounds.getOrDefault(key, 0L);
        }

        synchronized void resume(int rank) {
            ended[rank] = false;
        }

        synchronized boolean active(int rank) {
            return !ended[rank];
        }

        @Override
        public void close() {
            network.shutdown(); // queued callbacks and timeouts still run: stores may close after the server
        }
    }

    /** One key on the "server". */
    static final class Entry {
        final float[] value;
        boolean initialised;
        long completed;
        final Map<Long, float[][]> slots = new HashMap<>();
        final List<Runnable> waiting = new ArrayList<>();
        private AbstractKVStore updaterSource;
        private String key;

        Entry(int length) {
            value = new float[length];
        }

        /** Called with the server's lock held. */
        void tryComplete(Server server) {
            while (initialised) {
                float[][] s = slots.get(completed + 1);
                if (s == null) {
                    break;
                }
                boolean all = true;
                for (int r = 0; r < server.workers; r++) {
                    all &= s[r] != null || !server.active(r);
                }
                if (!all) {
                    break;
                }
                float[] sum = new float[value.length];
                for (float[] part : s) { // in rank order
                    if (part != null && part.length > 0) {
                        for (int i = 0; i < sum.length; i++) {
                            sum[i] += part[i];
                        }
                    }
                }
                ((InMemorySyncStore) updaterSource).update(key, FloatBuffer.wrap(sum), FloatBuffer.wrap(value));
                slots.remove(completed + 1);
                completed++;
            }
            List<Runnable> run = new ArrayList<>(waiting);
            waiting.clear();
            for (Runnable w : run) {
                server.network.execute(w);
            }
        }
    }

    private final Server server;

    InMemorySyncStore(Engine engine, KVStoreSettings settings, Server server) {
        super(engine, "in_memory_sync", settings);
        this.server = server;
    }

    void update(String key, FloatBuffer merged, FloatBuffer stored) {
        applyUpdater(key, merged, stored);
    }

    @Override
    protected void sendInit(Key key, CallbackOnComplete done) {
        float[] v = new float[key.length()];
        key.stored().get(v);
        server.network.execute(() -> {
            synchronized (server) {
                Entry e = server.entry(key.name(), key.length());
                if (rank() == 0) { // rank 0's value wins; others only wait for it in fetch
                    System.arraycopy(v, 0, e.value, 0, v.length);
                    e.initialised = true;
                    e.updaterSource = this;
                    e.key = key.name();
                    e.tryComplete(server);
                }
            }
            done.complete();
        });
    }

    @Override
    protected void send(Key key, long round, CallbackOnComplete done) {
        float[] v = new float[key.length()];
        key.merged().get(v);
        contribute(key, round, v, done);
    }

    @Override
    protected void skippedSend(Key key, long round, CallbackOnComplete done) {
        contribute(key, round, new float[0], done); // "nothing from this rank" for the round
    }

    @Override
    protected boolean reportsSkippedPushes() {
        return true;
    }

    private void contribute(Key key, long round, float[] v, CallbackOnComplete done) {
        server.network.execute(() -> {
            try {
                synchronized (server) {
                    Entry e = server.entry(key.name(), key.length());
                    e.slots.computeIfAbsent(round, r -> new float[server.workers][])[rank()] = v; // a retry overwrites
                    if (e.updaterSource == null) {
                        e.updaterSource = this;
                        e.key = key.name();
                    }
                    e.tryComplete(server);
                }
            } catch (RuntimeException ex) {
                done.fail(ex); // the updater failed on the "server": this push fails
                return;
            }
            done.complete();
        });
    }

    @Override
    protected void fetch(Key key, long round, CallbackOnComplete done) {
        ScheduledFuture<?> timeout = server.network.schedule(() -> done.fail(new KVStoreException(key.name(), rank(),
                "round " + round + " did not complete within " + settings().timeoutMs() + " ms", new TimeoutException())),
                settings().timeoutMs(), TimeUnit.MILLISECONDS);
        Runnable attempt = new Runnable() {
            @Override
            public void run() {
                synchronized (server) {
                    Entry e = server.entry(key.name(), key.length());
                    if (!e.initialised || e.completed < round) {
                        e.waiting.add(this); // woken by the event that completes the round, not by polling
                        return;
                    }
                    if (!timeout.cancel(false)) {
                        return; // timed out already
                    }
                    key.stored().put(e.value);
                }
                done.complete();
            }
        };
        server.network.execute(attempt);
    }

    @Override
    protected void onEndOfData() {
        server.endOfData(rank());
    }

    @Override
    protected void doBarrier() {
        for (Key k : allKeys()) {
            server.reportRound(k.name(), k.rounds());
        }
        try {
            server.barrier.await(settings().timeoutMs(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KVStoreException(null, rank(), "barrier interrupted", e);
        } catch (BrokenBarrierException | TimeoutException e) {
            throw new KVStoreException(null, rank(), "barrier failed", e);
        }
        server.resume(rank());
        for (Key k : allKeys()) {
            k.advanceRoundsTo(server.maxRound(k.name())); // skip the rounds others made while this worker had no data
        }
    }

    @Override
    protected void closeStore() {
        // the server is closed by whoever made it
    }

    @Override
    public String toString() {
        return "in-memory sync store rank " + rank() + " keys " + new TreeSet<>(keys());
    }
}
