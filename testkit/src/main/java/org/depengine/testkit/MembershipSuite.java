package org.depengine.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.depengine.api.Context;
import org.depengine.api.device.DeviceArray;
import org.depengine.kvstore.KVStore;
import org.depengine.kvstore.Updater;
import org.junit.jupiter.api.Test;

/**
 * {@link KVStore#onMembershipChange}: a store whose membership cannot change (every store today: local,
 * and distributed stores that are not elastic) never calls its listeners, through a whole job.
 */
@Workers({1, 2})
public abstract class MembershipSuite extends KVStoreSuite {
    private static final int ROUNDS = 3;
    private static final int N = 5;

    @Test
    void aStoreWhoseMembershipCannotChangeNeverCallsItsListeners() {
        List<KVStore> stores = openWorkers(workers());
        List<String> calls = Collections.synchronizedList(new ArrayList<>());
        List<KVStore.Registration> registrations = new ArrayList<>();
        DeviceArray[] v = new DeviceArray[stores.size()];
        for (KVStore s : stores) {
            int rank = s.rank();
            registrations.add(s.onMembershipChange(c -> calls.add("rank " + rank + " was told " + c)));
            s.setUpdater(Updater.sum());
            v[rank] = array(s.engine(), Context.cpu(), N, "v" + rank);
            write(s.engine(), v[rank], ramp(N, 1));
            s.init("k", v[rank]);
        }
        eachWorker(stores, s -> {
            for (int r = 0; r < ROUNDS; r++) {
                write(s.engine(), v[s.rank()], ramp(N, 100 * (r + 1) + s.rank()));
                s.pushPull("k", List.of(v[s.rank()]), List.of(v[s.rank()]), 0);
            }
            s.engine().waitForAll(BOUND); // dist_async: every push landed before the barrier
            s.barrier();
        });
        float[] expected = ramp(N, 1);
        for (int r = 0; r < ROUNDS; r++) {
            for (KVStore s : stores) {
                add(expected, ramp(N, 100 * (r + 1) + s.rank()));
            }
        }
        for (KVStore s : stores) {
            DeviceArray out = array(s.engine(), Context.cpu(), N, "out" + s.rank());
            s.pull("k", out);
            assertArrayEquals(expected, read(s.engine(), out), "the job ran: every push of rank " + s.rank() + "'s job");
            assertEquals(stores.indexOf(s), s.rank(), "rank after the job");
            assertEquals(stores.size(), s.numWorkers(), "numWorkers after the job");
        }
        for (KVStore s : stores) {
            s.close();
        }
        assertEquals(List.of(), calls, "no membership change in a job whose membership cannot change");
        KVStore first = stores.get(0);
        assertThrows(IllegalStateException.class, () -> first.onMembershipChange(c -> calls.add("after close")),
                "a closed store refuses a registration as it refuses its other calls");
        registrations.forEach(KVStore.Registration::remove); // allowed after close
    }
}
