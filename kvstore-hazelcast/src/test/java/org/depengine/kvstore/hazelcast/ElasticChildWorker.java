package org.depengine.kvstore.hazelcast;

import java.time.Duration;
import org.depengine.api.Engine;
import org.depengine.api.device.DeviceArray;
import org.depengine.kvstore.KVStore;

/**
 * A worker of an elastic job in a child JVM, for {@link ElasticWorkerKillTest}: joins as the rank its
 * arguments give ({@code name=value} store settings), inits {@code w}, then pushes and pulls rounds 1 to
 * {@code n - 1} and pushes round {@code n} ({@code n} from {@code -Ddepengine.test.childRounds}), each push
 * {@link ElasticWorkerKillTest#push}; prints {@code ROUND n PUSHED} once that push is sent, then waits to be
 * killed.
 */
public final class ElasticChildWorker {
    private ElasticChildWorker() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = Integer.getInteger("depengine.test.childRounds", 3);
        try (Engine engine = Engine.create("perdevice");
             KVStore kv = KVStore.open(engine, "dist_sync", ChildWorker.settings(args))) {
            DeviceArray w = WorkerKillTest.array(engine, "w");
            WorkerKillTest.write(engine, w, 0);
            kv.init("w", w);
            for (int round = 1; round <= rounds; round++) {
                WorkerKillTest.write(engine, w, ElasticWorkerKillTest.push(kv.rank(), round));
                kv.push("w", w);
                if (round < rounds) {
                    kv.pull("w", w);
                }
            }
            engine.waitForAll(Duration.ofSeconds(60));
            System.out.println("ROUND " + rounds + " PUSHED");
            System.out.flush();
            Thread.sleep(120_000); // killed long before
        }
    }
}
