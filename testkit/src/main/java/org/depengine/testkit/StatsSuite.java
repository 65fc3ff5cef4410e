package org.depengine.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.depengine.api.Context;
import org.depengine.api.EngineException;
import org.depengine.api.device.DeviceArray;
import org.depengine.kvstore.KVStore;
import org.depengine.kvstore.KVStoreStats;
import org.depengine.kvstore.Updater;
import org.junit.jupiter.api.Test;

/** {@link KVStore#stats()}: what each worker's counts say after rounds, a failed push, and close. */
@Workers({1, 2})
public abstract class StatsSuite extends KVStoreSuite {
    private static final int ROUNDS = 5;

    @Test
    void theCountsFollowTheOpsAndRoundsOfEveryWorker() {
        List<KVStore> stores = openWorkers(workers());
        int n = 2048;
        DeviceArray[] v = new DeviceArray[stores.size()];
        for (KVStore s : stores) {
            s.setUpdater(Updater.sum());
            v[s.rank()] = array(s.engine(), Context.cpu(), n, "v" + s.rank());
            write(s.engine(), v[s.rank()], new float[n]);
            s.init("k", v[s.rank()]);
        }
        eachWorker(stores, s -> {
            for (int r = 0; r < ROUNDS; r++) {
                write(s.engine(), v[s.rank()], ramp(n, r));
                s.push("k", v[s.rank()]);
                s.pull("k", v[s.rank()]);
            }
            s.engine().waitForAll(BOUND);
        });
        for (KVStore s : stores) {
            KVStoreStats st = s.stats();
            assertEquals(ROUNDS, st.pushes(), "pushes of rank " + s.rank());
            assertEquals(ROUNDS, st.pulls(), "pulls of rank " + s.rank());
            assertEquals(0, st.failedOps());
            assertEquals(0, st.pendingReads(), "no pull waits once its ops are done");
            assertTrue(st.roundsCompleted() >= ROUNDS && st.roundsCompleted() <= ROUNDS, "rounds seen: " + st);
            assertTrue(st.roundLatencyCount() >= 1 && st.roundLatencyNanos() > 0, "round latencies: " + st);
            if (stores.size() > 1) {
                assertTrue(st.bytesSent() > 0 && st.bytesReceived() > 0, "bytes of a distributed store: " + st);
            } else if (s.type().equals("local")) {
                assertEquals(0, st.bytesSent() + st.bytesReceived(), "local moves nothing over a network");
            }
            assertEquals(0, st.workersLost());
            assertEquals(st.workersLost(), st.membershipChanges());
        }
        KVStore first = stores.get(0);
        long pushes = first.stats().pushes();
        first.close();
        assertEquals(pushes, first.stats().pushes(), "the counts stay readable after close");
    }

    @Test
    void aPushWhoseProducerFailedCountsAsFailedWhereTheStoreSeesIt() {
        List<KVStore> stores = openWorkers(workers());
        for (KVStore s : stores) {
            DeviceArray a = array(s.engine(), Context.cpu(), 3, "init" + s.rank());
            write(s.engine(), a, new float[3]);
            s.init("w", a);
        }
        KVStore s0 = stores.get(0);
        DeviceArray g = array(s0.engine(), Context.cpu(), 3, "g");
        s0.engine().pushSync(rc -> {
            throw new IllegalStateException("boom");
        }, Context.cpu(), List.of(), List.of(g.var()), org.depengine.api.FnProperty.NORMAL, 0, "failing producer");
        s0.push("w", g);
        for (int r = 1; r < stores.size(); r++) {
            DeviceArray x = array(stores.get(r).engine(), Context.cpu(), 3, "x" + r);
            write(stores.get(r).engine(), x, new float[] {1, 1, 1});
            stores.get(r).push("w", x);
        }
        DeviceArray out = array(s0.engine(), Context.cpu(), 3, "out");
        s0.pull("w", out);
        assertThrows(EngineException.class, () -> s0.engine().waitForVar(out.var(), BOUND));
        for (KVStore s : stores) {
            s.engine().waitForAll(BOUND);
        }
        KVStoreStats st = s0.stats();
        // The push's send op never ran; a store that checks every push (dist_sync) counts it, and the pull
        // that carries its failure counts as failed where a fetch op ran into it.
        assertTrue(st.failedOps() >= (synchronousRounds() && stores.size() > 1 ? 1 : 0), "failed ops: " + st);
        assertEquals(0, st.pendingReads());
    }
}
