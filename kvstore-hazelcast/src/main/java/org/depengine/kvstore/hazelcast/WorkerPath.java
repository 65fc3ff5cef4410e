package org.depengine.kvstore.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import org.depengine.api.CallbackOnComplete;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.FnProperty;
import org.depengine.kvstore.Checkpoint;
import org.depengine.kvstore.KVStoreException;
import org.depengine.kvstore.Updater;
import org.depengine.kvstore.hazelcast.membership.ClusterSettings;
import org.depengine.kvstore.hazelcast.membership.JobMembership;
import org.depengine.kvstore.hazelcast.peer.PeerExchange;
import org.depengine.kvstore.spi.Key;
import org.depengine.kvstore.spi.Rounds;
import org.depengine.kvstore.spi.StoreStats;

/**
 * {@code updateOn=worker}: the store only sums, over the workers' own data transport
 * ({@link PeerExchange}), and every worker runs the updater on the round's sum; Hazelcast keeps the job's
 * membership, its barriers and each worker's data address. A step moves the bytes of an allreduce, and no
 * round waits for a backup.
 */
final class WorkerPath implements DataPath, ElasticPath {
    private final Engine engine;
    private final PeerExchange exchange;
    private final JobMembership job;

    private WorkerPath(Engine engine, PeerExchange exchange, JobMembership job) {
        this.engine = engine;
        this.exchange = exchange;
        this.job = job;
    }

    /**
     * Starts this worker's transport, publishes its address and connects to every other worker's.
     *
     * @throws KVStoreException if another worker's transport cannot be reached within the join timeout
     */
    static WorkerPath open(Engine engine, HazelcastInstance hz, JobMembership job, ClusterSettings cluster, boolean elastic,
                           PeerExchange.Applier applier, ScheduledExecutorService timer, StoreStats stats) {
        InetAddress bind = bindAddress(cluster, hz);
        boolean joining = job.joining();
        PeerExchange x = new PeerExchange(job.rank(), joining ? 1 : job.workers(), cluster.splitFloats(), cluster.timeoutMs(),
                elastic, joining, job.jobId(), new InetSocketAddress(bind, cluster.dataPort()), applier, timer, stats);
        try {
            String host = bind.isAnyLocalAddress() ? advertised(hz) : bind.getHostAddress();
            job.dataAddresses().publish(host + ":" + x.port());
            if (!joining) { // a joiner connects to the workers of the view that admits it (ElasticJob)
                List<Integer> others = new java.util.ArrayList<>();
                for (int r = 0; r < job.workers(); r++) {
                    others.add(r);
                }
                connect(x, job, others, cluster.joinTimeoutMs());
            }
            if (!elastic) { // an elastic job's losses are view changes (ElasticJob)
                job.onLoss(x::lost);
            }
            return new WorkerPath(engine, x, job);
        } catch (RuntimeException e) {
            x.close();
            if (e instanceof KVStoreException) {
                throw e;
            }
            throw new KVStoreException(null, job.rank(), "cannot connect to the other workers' data transport "
                    + "(updateOn=worker; depengine.kvstore.bind, dataPort): " + e.getMessage(), e);
        }
    }

    /**
     * Connects {@code x} to the workers at {@code places} on the wire (their ranks in the job's first view, or
     * joiners' registrations) it is not connected to yet, at the data addresses they published.
     *
     * @param timeoutMs bounds the wait for each address and each connection
     * @throws KVStoreException if an address is not published in time
     * @throws IllegalStateException if a worker cannot be reached in time
     */
    static void connect(PeerExchange x, JobMembership job, List<Integer> places, long timeoutMs) {
        Map<Integer, InetSocketAddress> peers = new HashMap<>();
        for (int m : places) {
            if (!x.connected(m)) {
                String a = job.dataAddresses().of(m, timeoutMs);
                int colon = a.lastIndexOf(':');
                peers.put(m, new InetSocketAddress(a.substring(0, colon), Integer.parseInt(a.substring(colon + 1))));
            }
        }
        x.connect(peers, timeoutMs);
    }

    @Override
    public void init(Key key, CallbackOnComplete done) {
        exchange.init(key, done);
    }

    @Override
    public void send(Key key, long round, Updater updater, CallbackOnComplete done) {
        exchange.send(key, round, done);
    }

    @Override
    public void skipped(Key key, long round, CallbackOnComplete done) {
        exchange.skipped(key, round, done);
    }

    @Override
    public void fetch(Key key, long round, CallbackOnComplete done) {
        exchange.fetch(key, round, done);
    }

    @Override
    public void endPeriod(int period, CallbackOnComplete done) {
        exchange.endPeriod(period, done);
    }

    /**
     * The keys are here, on every worker: each is brought to the end of {@code period} (an op per key that
     * applies the rounds of the period this worker did not push, if it ended it early), then read here.
     */
    @Override
    public List<Checkpoint.Entry> snapshot(List<Key> keys, int period) {
        for (Key k : keys) {
            engine.pushAsync((rc, done) -> exchange.fetch(k, Rounds.of(period, 0), done), Context.cpu(), List.of(),
                    List.of(k.storeVar()), FnProperty.ASYNC, 0, "kvstore checkpoint: " + k.name() + " as of period " + period);
        }
        return null; // read here, by the store, after those ops
    }

    @Override
    public boolean pullFetches() {
        return true;
    }

    @Override
    public void leave() {
        exchange.leave();
    }

    /** This worker's exchange: an elastic job's barrier waits on its periods. */
    PeerExchange exchange() {
        return exchange;
    }

    @Override
    public void recoveryTimeout(long ms) {
        exchange.recoveryTimeout(ms);
    }

    @Override
    public void onViewInstalled(org.depengine.kvstore.hazelcast.peer.ViewListener l) {
        exchange.onViewInstalled(l);
    }

    /** Connects to the data transport of each worker at {@code places} not connected yet (a joiner's, at its admission). */
    @Override
    public void reach(List<Integer> places, long timeoutMs) {
        connect(exchange, job, places, timeoutMs);
    }

    @Override
    public void changeView(int epoch, int[] places) {
        exchange.changeView(epoch, places);
    }

    @Override
    public void released(int epoch) {
        exchange.released(epoch);
    }

    @Override
    public void failAll(String why) {
        exchange.failAll(why);
    }

    @Override
    public void close() {
        exchange.close();
    }

    /** The address to listen on: {@code bind} (a literal, or the first of this machine's addresses matching a pattern), or any. */
    private static InetAddress bindAddress(ClusterSettings cluster, HazelcastInstance hz) {
        String b = cluster.bind();
        try {
            if (b == null) {
                return cluster.client() ? InetAddress.getByName("0.0.0.0") : InetAddress.getByName(
                        hz.getCluster().getLocalMember().getAddress().getHost());
            }
            if (!b.contains("*") && !b.contains("-")) {
                return InetAddress.getByName(b);
            }
            for (NetworkInterface ni : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                for (InetAddress a : Collections.list(ni.getInetAddresses())) {
                    if (matches(b, a.getHostAddress())) {
                        return a;
                    }
                }
            }
            throw new IllegalArgumentException("setting " + HazelcastSettings.BIND.key() + "='" + b + "' is invalid: no "
                    + "address of this machine matches it");
        } catch (UnknownHostException | SocketException e) {
            throw new IllegalArgumentException("setting " + HazelcastSettings.BIND.key() + "='" + b + "': " + e, e);
        }
    }

    private static boolean matches(String pattern, String address) {
        String[] p = pattern.split("\\.");
        String[] a = address.split("\\.");
        if (p.length != 4 || a.length != 4) {
            return false;
        }
        for (int i = 0; i < 4; i++) {
            if (p[i].equals("*")) {
                continue;
            }
            int v = Integer.parseInt(a[i]);
            int dash = p[i].indexOf('-');
            int lo = Integer.parseInt(dash < 0 ? p[i] : p[i].substring(0, dash));
            int hi = dash < 0 ? lo : Integer.parseInt(p[i].substring(dash + 1));
            if (v < lo || v > hi) {
                return false;
            }
        }
        return true;
    }

    /** The address the others reach this worker at when it listens on all interfaces: its endpoint's. */
    private static String advertised(HazelcastInstance hz) {
        java.net.SocketAddress a = hz.getLocalEndpoint().getSocketAddress();
        if (a instanceof InetSocketAddress s && !s.getAddress().isAnyLocalAddress()) {
            return s.getAddress().getHostAddress();
        }
        try {
            return InetAddress.getLocalHost().getHostAddress();
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("cannot tell this worker's address: give depengine.kvstore.bind", e);
        }
    }
}
