package org.depengine.kvstore.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import java.util.concurrent.CountDownLatch;
import org.depengine.kvstore.KVStoreSettings;
import org.depengine.kvstore.hazelcast.membership.ClusterNode;
import org.depengine.kvstore.hazelcast.membership.ClusterSettings;

/**
 * A stand-alone member of a separate cluster, for workers that run as clients
 * ({@code -Ddepengine.kvstore.mode=client}). It takes the same {@code depengine.kvstore.*} system
 * properties (members, port, bind, cluster) and runs until the process is stopped.
 */
public final class KVServer {
    private KVServer() {
    }

    /**
     * Starts the member and blocks.
     *
     * @throws InterruptedException if the main thread is interrupted
     */
    public static void main(String[] args) throws InterruptedException {
        ClusterSettings settings = ClusterSettings.from(KVStoreSettings.fromSystemProperties(), true);
        HazelcastInstance hz = ClusterNode.startMember(settings);
        Runtime.getRuntime().addShutdownHook(new Thread(hz::shutdown, "kvserver-shutdown"));
        new CountDownLatch(1).await();
    }
}
