package org.depengine.kvstore.hazelcast;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.device.DeviceArray;
import org.depengine.api.device.Devices;
import org.depengine.kvstore.KVStore;

/**
 * The program {@link RetentionTest} runs in a JVM of its own with a small heap: two {@code dist_sync}
 * workers (two embedded members of one loopback cluster, an engine each) push and pull one key for a
 * number of rounds, each waiting for its pulled value every round as a training step does. It prints the
 * heap in use after a full GC once a tenth of the rounds have run and at the end, and exits with 0 if it
 * grew by less than the limit, 1 if not (an {@code OutOfMemoryError} ends the JVM with its own code).
 * Arguments: rounds, floats per key, timeoutMs, limit in MiB.
 */
public final class RetentionProgram {
    private RetentionProgram() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = Integer.parseInt(args[0]);
        int floats = Integer.parseInt(args[1]);
        String timeoutMs = args[2];
        long limit = Long.parseLong(args[3]) << 20;
        TestCluster cluster = new TestCluster(2);
        List<Engine> engines = List.of(Engine.create("perdevice"), Engine.create("perdevice"));
        List<KVStore> stores = TestCluster.parallel(2, r -> KVStore.open(engines.get(r), "dist_sync",
                cluster.storeSettings(r, Map.of("timeoutMs", timeoutMs))));
        List<DeviceArray> values = new ArrayList<>();
        List<DeviceArray> outs = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
            DeviceArray g = array(engines.get(r), floats, "g" + r);
            ChildWorker.push(engines.get(r), g, r + 1);
            stores.get(r).init("w", g);
            values.add(g);
            outs.add(array(engines.get(r), floats, "out" + r));
        }
        long before = 0;
        for (int round = 1; round <= rounds; round++) {
            for (int r = 0; r < 2; r++) {
                stores.get(r).push("w", values.get(r));
                stores.get(r).pull("w", outs.get(r));
            }
            for (int r = 0; r < 2; r++) {
                engines.get(r).waitForVar(outs.get(r).var(), Duration.ofMinutes(1));
            }
            if (round == rounds / 10) {
                before = usedAfterGc();
            }
        }
        long after = usedAfterGc();
        System.out.printf("heap in use after GC: %d MiB after round %d, %d MiB after round %d (limit +%d MiB)%n",
                before >> 20, rounds / 10, after >> 20, rounds, limit >> 20);
        for (KVStore s : stores) {
            s.close();
        }
        for (Engine e : engines) {
            e.close();
        }
        System.exit(after - before < limit ? 0 : 1);
    }

    private static DeviceArray array(Engine engine, int floats, String name) {
        return new DeviceArray(Devices.device(Context.cpu()).allocate(4L * floats), engine.newVariable(name));
    }

    private static long usedAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
