package org.depengine.kvstore.hazelcast;

import com.hazelcast.core.DistributedObject;
import com.hazelcast.core.HazelcastInstance;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.depengine.kvstore.KVStoreSettings;
import org.depengine.kvstore.hazelcast.membership.ClusterNode;
import org.depengine.kvstore.hazelcast.membership.ClusterSettings;

/**
 * Settings for a loopback cluster of a test: free ports, and a cluster name of its own so that test
 * JVMs running at the same time never join each other.
 */
final class TestCluster {
    final List<Integer> ports;
    final String clusterName = "depengine-test-" + UUID.randomUUID();

    TestCluster(int members) {
        ports = freePorts(members);
    }

    /** The settings (short names) of member {@code i}, with {@code extra} on top. */
    Map<String, String> properties(int i, Map<String, String> extra) {
        Map<String, String> p = new HashMap<>();
        StringBuilder members = new StringBuilder();
        for (int port : ports) {
            members.append(members.length() == 0 ? "" : ",").append("127.0.0.1:").append(port);
        }
        p.put("members", members.toString());
        p.put("port", Integer.toString(ports.get(i)));
        p.put("portCount", "1");
        p.put("clusterName", clusterName);
        p.put("timeoutMs", "20000");
        p.put("numWorkers", Integer.toString(ports.size()));
        p.put("rank", Integer.toString(i));
        p.putAll(extra);
        return p;
    }

    /** The store settings of member (and rank) {@code i}, short names as in {@link KVStoreSettings.Builder#set}. */
    KVStoreSettings storeSettings(int i, Map<String, String> extra) {
        KVStoreSettings.Builder b = KVStoreSettings.builder();
        properties(i, extra).forEach(b::set);
        return b.build();
    }

    ClusterSettings settings(int i, Map<String, String> extra) {
        return ClusterSettings.from(storeSettings(i, extra), false);
    }

    /** Starts members {@code 0..n-1} at the same time (joining takes seconds each). */
    List<HazelcastInstance> startMembers(int n, Map<String, String> extra) {
        List<CompletableFuture<HazelcastInstance>> starts = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ClusterSettings s = settings(i, extra);
            starts.add(CompletableFuture.supplyAsync(() -> ClusterNode.start(s)));
        }
        List<HazelcastInstance> out = new ArrayList<>();
        for (CompletableFuture<HazelcastInstance> f : starts) {
            out.add(f.join());
        }
        return out;
    }

    /**
     * Runs {@code task} on a thread of its own. Not the common pool: since JDK 21 it runs a CompletableFuture's
     * tasks even at parallelism 1 (two cores), one after the other, so two workers' calls that wait for each
     * other (an open, a barrier) would wait forever.
     */
    static CompletableFuture<Void> onItsOwnThread(Runnable task) {
        return CompletableFuture.runAsync(task, TestCluster::start);
    }

    /** {@code task}'s result, computed on a thread of its own (see {@link #onItsOwnThread(Runnable)}). */
    static <T> CompletableFuture<T> onItsOwnThread(java.util.function.Supplier<T> task) {
        return CompletableFuture.supplyAsync(task, TestCluster::start);
    }

    private static void start(Runnable r) {
        Thread t = new Thread(r, "test worker");
        t.setDaemon(true);
        t.start();
    }

    /** The names of the jobs' maps (the keys', ranks and shared ones) the cluster of {@code hz} has. */
    static List<String> jobMaps(HazelcastInstance hz) {
        return hz.getDistributedObjects().stream().map(DistributedObject::getName)
                .filter(n -> n.startsWith(ClusterNode.MAP_PREFIX)).toList();
    }

    /** Closes stores {@code indices} of {@code stores} at the same time, each on a thread of its own: a job's end. */
    static void closeTogether(List<? extends AutoCloseable> stores, List<Integer> indices) {
        parallel(indices.size(), i -> {
            try {
                stores.get(indices.get(i)).close();
            } catch (Exception e) {
                throw new IllegalStateException("closing store " + indices.get(i), e);
            }
            return null;
        });
    }

    /** Runs {@code f} for each index at the same time, each on a thread of its own; the results in index order. */
    static <T> List<T> parallel(int n, Function<Integer, T> f) {
        List<CompletableFuture<T>> fs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int k = i;
            fs.add(CompletableFuture.supplyAsync(() -> f.apply(k), TestCluster::start));
        }
        List<T> out = new ArrayList<>();
        for (CompletableFuture<T> x : fs) {
            out.add(x.join());
        }
        return out;
    }

    private static List<Integer> freePorts(int n) {
        List<ServerSocket> sockets = new ArrayList<>();
        List<Integer> ports = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                sockets.add(s);
                ports.add(s.getLocalPort());
            }
            for (ServerSocket s : sockets) {
                s.close();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return ports;
    }
}
