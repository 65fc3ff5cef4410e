package org.depengine.kvstore.hazelcast.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.depengine.kvstore.KVStoreException;
import org.depengine.kvstore.hazelcast.HazelcastSettings;
import org.depengine.kvstore.hazelcast.membership.ClusterNode;
import org.depengine.kvstore.hazelcast.membership.ClusterSettings;
import org.depengine.kvstore.hazelcast.hz.InitOp;
import org.depengine.kvstore.hazelcast.hz.KeyState;
import org.depengine.kvstore.hazelcast.hz.ReadOp;
import org.depengine.kvstore.hazelcast.hz.Reply;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A risk from reading the code, confirmed: a waiting read was re-issued only on entry events, so an
 * event Hazelcast dropped (it does when its event queue is full) failed the read at the timeout
 * although its round had completed. Here every event is dropped (the reads are not registered as a
 * listener at all): the read still completes, well before its timeout.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PendingReadsTest {
    @Test
    void aReadWhoseEventWasDroppedCompletesBeforeTheTimeout() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        ClusterSettings settings = new ClusterSettings(List.of("127.0.0.1:" + port), port, 1, "127.0.0.1",
                "pending-reads-" + UUID.randomUUID(), false, "job", 0, 1, 30_000, 30_000, 1 << 20, 1, 1, 7, List.of(),
                HazelcastSettings.UpdateOn.SERVER, 0);
        HazelcastInstance hz = ClusterNode.start(settings);
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1);
        timer.setRemoveOnCancelPolicy(true);
        try {
            IMap<String, KeyState> map = hz.getMap(ClusterNode.MAP_PREFIX + "job");
            PendingReads reads = new PendingReads(map, timer,
                    (key, what, cause) -> new KVStoreException(key, 0, what + ": " + cause, null), () -> null);
            CompletableFuture<Reply> read = reads.read("k", new ReadOp("k", 0, 1, false, 0, 0), "k", "pull round 0",
                    Duration.ofSeconds(30));
            // Submitted after the read's first try, to the same partition from this thread: it runs after
            // it, so that try answers "not ready", and the init's event reaches no one.
            map.submitToKey("k", new InitOp("k", 0, 1, false, new float[] {4, 2})).toCompletableFuture().join();
            assertArrayEquals(new float[] {4, 2}, read.get(10, TimeUnit.SECONDS).value(), "the read of the landed init");
        } finally {
            timer.shutdownNow();
            hz.shutdown();
        }
    }
}
