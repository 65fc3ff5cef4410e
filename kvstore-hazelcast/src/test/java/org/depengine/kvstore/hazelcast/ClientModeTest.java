package org.depengine.kvstore.hazelcast;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.hazelcast.core.HazelcastInstance;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.FnProperty;
import org.depengine.api.device.DeviceArray;
import org.depengine.kvstore.KVStore;
import org.depengine.kvstore.Updater;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A worker that is a client ({@code mode=client}) of a separate cluster (here one member in this JVM, as KVServer runs). */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ClientModeTest {
    @Test
    void aClientWorkerPushesAndPullsThroughTheClusterItConnectsTo() {
        TestCluster cluster = new TestCluster(1);
        HazelcastInstance member = cluster.startMembers(1, Map.of()).get(0);
        try (Engine engine = Engine.create("perdevice");
             KVStore kv = KVStore.open(engine, "dist_sync", cluster.storeSettings(0, Map.of("mode", "client",
                     "numWorkers", "1")))) {
            assertEquals("dist_sync", kv.type());
            kv.setUpdater(Updater.sgd(0.5f));
            DeviceArray w = WorkerKillTest.array(engine, "w");
            WorkerKillTest.write(engine, w, 2);
            kv.init("k", w);
            WorkerKillTest.write(engine, w, 1);
            kv.push("k", w);
            DeviceArray out = WorkerKillTest.array(engine, "out");
            kv.pull("k", out);
            ByteBuffer host = ByteBuffer.allocateDirect(16).order(ByteOrder.nativeOrder());
            engine.pushSync(rc -> ChildWorker.memcpy().deviceToHost(rc.stream(), out.buffer(), 0, host), Context.cpu(),
                    List.of(out.var()), List.of(engine.newVariable("read")), FnProperty.NORMAL, 0, "read");
            engine.waitForAll(Duration.ofSeconds(60));
            float[] got = new float[4];
            host.asFloatBuffer().get(got);
            assertArrayEquals(new float[] {1.5f, 1.5f, 1.5f, 1.5f}, got);
            assertEquals(1, member.getCluster().getMembers().size(), "the client is not a member");
        } finally {
            member.shutdown();
        }
    }
}
