package org.depengine.kvstore.hazelcast;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.depengine.kvstore.KVStoreException;
import org.depengine.kvstore.Updater;
import org.depengine.kvstore.hazelcast.hz.KeyState;
import org.depengine.kvstore.hazelcast.hz.PushOp;
import org.depengine.kvstore.hazelcast.membership.ClusterNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An elastic job's view change on the keys' owners ({@code updateOn=server}; {@code docs/elastic-design.md},
 * section 9), built deterministically on the round clients of three workers (no membership: the test hands the
 * view over as the store does). Worker 2 gives round 2 of a split key to one of its two chunks only, as a worker
 * that dies in the middle of its push; then the view without it is handed to workers 0 and 1. The torn key's ops
 * of round 2 and later fail on both, naming the key and the round; the split key worker 2 pushed whole keeps its
 * part in round 2 (open at the change: worker 1 pushes it after); the small keys (one chunk each: never torn) complete round 2 without it; a key declared after
 * the change completes its rounds without it; a barrier passes. Worker 1, told of the view after worker 0, holds
 * a value summed over it until it has moved to it (a hold that outlives the recovery timeout fails, saying so).
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class TornRoundTest {
    private static final int N = 3;
    private static final long ROUND_2 = 2;
    private final TestCluster cluster = new TestCluster(N);
    private final List<HazelcastInstance> members = new ArrayList<>();
    private final List<Table> tables = new ArrayList<>();

    @AfterEach
    void stop() {
        tables.forEach(Table::close);
        members.forEach(HazelcastInstance::shutdown);
    }

    @Test
    void aSplitKeysRoundTornByAWorkerLostMidPushFailsItsLaterOpsAndTheOtherKeysCompleteWithTheSurvivors() {
        members.addAll(cluster.startMembers(N, Map.of()));
        String job = "torn-round";
        tables.addAll(TestCluster.parallel(N, r -> {
            Map<String, String> p = new HashMap<>(Map.of("jobId", job, "splitFloats", "2"));
            return new Table(members.get(r), cluster.settings(r, p), r, N, false, null, true);
        }));
        Map<String, Integer> keys = Map.of("torn", 4, "whole", 4, "small", 2, "held", 2);
        Map<String, float[]> model = new HashMap<>();
        keys.forEach((key, n) -> {
            model.put(key, new float[n]);
            tables.forEach(t -> t.init(key, new float[n]).join()); // every worker of an elastic job inits
        });
        Updater sum = Updater.sum();
        for (Table t : tables) {
            keys.forEach((key, n) -> t.push(key, 1, push(t.rank(), 1, n), sum).join());
        }
        keys.forEach((key, n) -> add(model.get(key), 1, 0, 1, 2));
        for (Table t : tables) {
            keys.forEach((key, n) -> assertArrayEquals(model.get(key), t.pull(key, 1).join(), key + " after round 1"));
        }

        // Round 2: workers 0 and 1 push every key ('whole' worker 1 only after the change); worker 2 pushes 'whole'
        // whole, and only the first chunk of 'torn'.
        for (int r = 0; r < 2; r++) {
            Table t = tables.get(r);
            keys.forEach((key, n) -> {
                if (t.rank() == 0 || !key.equals("whole")) {
                    t.push(key, ROUND_2, push(t.rank(), 2, n), sum).join();
                }
            });
        }
        tables.get(2).push("whole", ROUND_2, push(2, 2, 4), sum).join();
        IMap<String, KeyState> map = members.get(2).getMap(ClusterNode.MAP_PREFIX + job);
        float[] firstChunk = {push(2, 2, 4)[0], push(2, 2, 4)[1]};
        map.submitToKey("torn#0", new PushOp("torn", 0, N, false, 2, ROUND_2, firstChunk, sum)).toCompletableFuture().join();

        // Worker 0 moves to view 1 = {0, 1}; each key's answer is the last round worker 2 gave it data to.
        Map<String, Long> last = tables.get(0).changeView(1, new int[] {0, 1}).join();
        assertEquals(Map.of("torn", 2L, "whole", 2L, "small", 1L, "held", 1L), last);
        tables.get(0).released(1);

        // Worker 1 has not moved yet: the owners completed round 2 without worker 2, and it holds the value.
        Table slow = tables.get(1);
        slow.recoveryTimeout(300);
        CompletionException held = assertThrows(CompletionException.class, () -> slow.pull("held", ROUND_2).join());
        assertInstanceOf(KVStoreException.class, held.getCause());
        assertTrue(held.getCause().getMessage().contains("a key's owner was told of view 1, which this worker's store has "
                + "not moved to within recoveryTimeoutMs=300"), held.getCause().getMessage());
        slow.recoveryTimeout(10_000);
        assertEquals(last, slow.changeView(1, new int[] {0, 1}).join(), "every survivor reads the same answers");
        slow.released(1);
        // Round 2 of 'whole' was open at the change, worker 2's part in it: the part stays, and the round completes
        // with it once worker 1's comes.
        slow.push("whole", ROUND_2, push(1, 2, 4), sum).join();

        add(model.get("whole"), 2, 0, 1, 2);
        add(model.get("small"), 2, 0, 1);
        add(model.get("held"), 2, 0, 1);
        for (int w = 0; w < 2; w++) {
            int r = w;
            Table t = tables.get(r);
            for (String key : List.of("whole", "small", "held")) {
                assertArrayEquals(model.get(key), t.pull(key, ROUND_2).join(), key + " after round 2 on worker " + r);
            }
            String torn = "kvstore key 'torn' on rank " + r + ": pull round 2: its round 2 is torn: worker rank 2 of "
                    + "the job's first view died in the middle of its push of that round, which reached 1 of the key's 2 "
                    + "chunks (splitFloats)";
            CompletionException pull = assertThrows(CompletionException.class, () -> t.pull("torn", ROUND_2).join());
            assertTrue(pull.getCause().getMessage().startsWith(torn), pull.getCause().getMessage());
            CompletionException next = assertThrows(CompletionException.class,
                    () -> t.push("torn", 3, push(r, 3, 4), sum).join());
            assertTrue(next.getCause().getMessage().contains("push round 3: its round 2 is torn"),
                    next.getCause().getMessage());
        }

        // The rounds go on without worker 2, on keys declared before the change and after it.
        for (int r = 0; r < 2; r++) {
            tables.get(r).init("later", new float[3]).join();
        }
        model.put("later", new float[3]);
        for (int r = 0; r < 2; r++) {
            tables.get(r).push("small", 3, push(r, 3, 2), sum).join();
            tables.get(r).push("later", 1, push(r, 1, 3), sum).join();
        }
        add(model.get("small"), 3, 0, 1);
        add(model.get("later"), 1, 0, 1);
        for (int r = 0; r < 2; r++) {
            assertArrayEquals(model.get("small"), tables.get(r).pull("small", 3).join(), "small after round 3");
            assertArrayEquals(model.get("later"), tables.get(r).pull("later", 1).join(), "a key declared after the change");
        }
        CompletableFuture<Void> b0 = tables.get(0).barrier();
        CompletableFuture<Void> b1 = tables.get(1).barrier();
        b0.join();
        b1.join();
    }

    /** Adds the pushes of {@code ranks} of {@code round} to {@code value}, in rank order. */
    private static void add(float[] value, int round, int... ranks) {
        for (int r : ranks) {
            float[] g = push(r, round, value.length);
            for (int i = 0; i < value.length; i++) {
                value[i] += g[i];
            }
        }
    }

    /** Worker {@code rank}'s push of {@code round}: small whole numbers, so that every sum is exact. */
    private static float[] push(int rank, int round, int length) {
        float[] g = new float[length];
        for (int i = 0; i < length; i++) {
            g[i] = ((rank + 1) * 7 + round * 3 + i) % 11 - 5;
        }
        return g;
    }
}
