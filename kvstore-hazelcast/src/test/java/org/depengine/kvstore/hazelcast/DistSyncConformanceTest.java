package org.depengine.kvstore.hazelcast;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.depengine.api.Context;
import org.depengine.api.device.DeviceArray;
import org.depengine.kvstore.KVStore;
import org.depengine.kvstore.Updater;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code dist_sync} passes the KVStore conformance suite. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DistSyncConformanceTest extends DistConformance {
    @BeforeAll
    static void formCluster() {
        form();
    }

    @AfterAll
    static void stopCluster() {
        stop();
    }

    @Override
    String type() {
        return HazelcastKVStoreProvider.DIST_SYNC;
    }

    /**
     * Uneven batch counts: rank 1 runs out of data after two rounds and says so; rank 0's third round
     * completes without it; after the barrier both are in step again (a pull before any push of the new
     * period sees the whole previous one).
     */
    @Test
    void unevenBatchesFinishTheirRoundsAndTheWorkersRealignAtTheBarrier() throws Exception {
        List<KVStore> stores = openWorkers(2);
        List<DeviceArray> values = new ArrayList<>();
        for (KVStore s : stores) {
            s.setUpdater(Updater.sum());
            DeviceArray v = array(s.engine(), Context.cpu(), 1, "v" + s.rank());
            write(s.engine(), v, new float[] {0});
            s.init("w", v);
            values.add(v);
        }
        KVStore s0 = stores.get(0);
        KVStore s1 = stores.get(1);
        for (float x : new float[] {1, 2, 3}) {
            write(s0.engine(), values.get(0), new float[] {x});
            s0.push("w", values.get(0));
        }
        for (float x : new float[] {10, 20}) {
            write(s1.engine(), values.get(1), new float[] {x});
            s1.push("w", values.get(1));
        }
        s1.endOfData();
        DeviceArray out0 = array(s0.engine(), Context.cpu(), 1, "out0");
        s0.pull("w", out0);
        assertArrayEquals(new float[] {36}, read(s0.engine(), out0), "round 3 completed without rank 1");

        CompletableFuture<Void> other = CompletableFuture.runAsync(s1::barrier);
        s0.barrier();
        other.get(60, TimeUnit.SECONDS);
        DeviceArray out1 = array(s1.engine(), Context.cpu(), 1, "out1");
        s1.pull("w", out1);
        assertArrayEquals(new float[] {36}, read(s1.engine(), out1), "after the barrier rank 1 sees rank 0's last round");

        write(s0.engine(), values.get(0), new float[] {100});
        s0.push("w", values.get(0));
        write(s1.engine(), values.get(1), new float[] {1000});
        s1.push("w", values.get(1));
        s0.pull("w", out0);
        s1.pull("w", out1);
        assertArrayEquals(new float[] {1136}, read(s0.engine(), out0));
        assertArrayEquals(new float[] {1136}, read(s1.engine(), out1));
    }
}
