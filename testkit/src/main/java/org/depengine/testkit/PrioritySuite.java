package org.depengine.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.depengine.api.Capture;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.EngineException;
import org.depengine.api.FnProperty;
import org.depengine.api.Graph;
import org.depengine.api.VarHandle;
import org.depengine.api.device.DeviceArray;
import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Devices;
import org.depengine.api.device.primitive.Memcpy;
import org.depengine.api.listen.OpInfo;
import org.depengine.api.listen.OpListener;
import org.depengine.kvstore.Checkpoint;
import org.depengine.kvstore.KVStore;
import org.depengine.kvstore.KVStoreException;
import org.depengine.kvstore.Updater;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Priorities of the store's ops on an engine that orders by them. */
@Workers({1})
public abstract class PrioritySuite extends KVStoreSuite {
    // ------------------------------------------------------------------ priorities

    /**
     * Pulls of several keys queued behind a busy single priority worker come back highest priority
     * first. Deterministic: the pulls' copies are all ready before the worker is freed.
     */
    @Test
    @Needs(priorities = true)
    void pullsQueuedTogetherRunHighestPriorityFirst() throws Exception {
        KVStore store = openOne();
        int[] priorities = {3, -1, 7, 0, 5, -4};
        List<DeviceArray> outs = new ArrayList<>();
        for (int i = 0; i < priorities.length; i++) {
            init(store, "p" + i, Context.cpu(), new float[] {i});
            outs.add(array(engine, Context.cpu(), 1, "out" + i));
        }
        engine.waitForAll(BOUND);
        List<VarHandle> outVars = new ArrayList<>();
        for (DeviceArray o : outs) {
            outVars.add(o.var());
        }
        List<Integer> startOrder = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger ready = new AtomicInteger();
        OpListener listener = new OpListener() {
            @Override
            public void ready(OpInfo op, long nanoTime) {
                if (writesAnOut(op)) {
                    ready.incrementAndGet();
                }
            }

            @Override
            public void started(OpInfo op, long nanoTime) {
                if (writesAnOut(op)) {
                    startOrder.add(op.priority());
                }
            }

            private boolean writesAnOut(OpInfo op) {
                for (VarHandle v : op.writes()) {
                    if (outVars.contains(v)) {
                        return true;
                    }
                }
                return false;
            }
        };
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        engine.pushSync(rc -> {
            started.countDown();
            assertTrue(release.await(BOUND.toMillis(), TimeUnit.MILLISECONDS), "blocker never released");
        }, Context.cpu(), List.of(), List.of(engine.newVariable("blocker")), FnProperty.CPU_PRIORITIZED, Integer.MAX_VALUE,
                "test: occupy the priority worker");
        assertTrue(started.await(BOUND.toMillis(), TimeUnit.MILLISECONDS), "the blocker did not start");
        engine.addListener(listener);
        try {
            for (int i = 0; i < priorities.length; i++) {
                store.pull("p" + i, outs.get(i), priorities[i]);
            }
            long deadline = System.nanoTime() + BOUND.toNanos();
            while (ready.get() < priorities.length) {
                assertTrue(System.nanoTime() < deadline, "the pulls' copies never became ready: " + ready.get());
                Thread.onSpinWait();
            }
            release.countDown();
            engine.waitForAll(BOUND);
        } finally {
            release.countDown();
            engine.removeListener(listener);
        }
        assertEquals(List.of(7, 5, 3, 0, -1, -4), startOrder, "pulls ran out of priority order");
        for (int i = 0; i < priorities.length; i++) {
            assertArrayEquals(new float[] {i}, read(engine, outs.get(i)));
        }
    }
}
