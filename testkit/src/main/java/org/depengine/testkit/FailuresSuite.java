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

/** Bad input refused at the call, failures carried by the variables and naming the key and rank, and close. */
@Workers({1})
public abstract class FailuresSuite extends KVStoreSuite {
    // ------------------------------------------------------------------ bad input

    @Test
    void badInputIsRefusedAtTheCallWithAClearMessage() {
        KVStore store = openOne();
        Context c = devices().get(0);
        init(store, "w", c, new float[4]);
        DeviceArray four = array(engine, c, 4, "four");
        DeviceArray three = array(engine, c, 3, "three");

        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class, () -> store.push("nope", four));
        assertContains(unknown, "nope", "init");
        unknown = assertThrows(IllegalArgumentException.class, () -> store.pull("nope", four));
        assertContains(unknown, "nope");
        assertThrows(IllegalArgumentException.class, () -> store.length("nope"));

        IllegalArgumentException shape = assertThrows(IllegalArgumentException.class, () -> store.push("w", four, three));
        assertContains(shape, "'w'", "3", "4");
        shape = assertThrows(IllegalArgumentException.class, () -> store.pull("w", three));
        assertContains(shape, "'w'", "3", "4");
        shape = assertThrows(IllegalArgumentException.class,
                () -> store.pushPull("w", List.of(four), List.of(three), 0));
        assertContains(shape, "'w'", "3");

        IllegalArgumentException twice = assertThrows(IllegalArgumentException.class, () -> store.init("w", four));
        assertContains(twice, "'w'", "already");
        assertThrows(IllegalArgumentException.class, () -> store.init("", four));
        IllegalArgumentException empty = assertThrows(IllegalArgumentException.class, () -> store.push("w", List.of(), 0));
        assertContains(empty, "empty");
        assertThrows(IllegalArgumentException.class, () -> store.pull("w", List.of(), 0));

        assertThrows(NullPointerException.class, () -> store.push(null, four));
        assertThrows(NullPointerException.class, () -> store.push("w", (List<DeviceArray>) null, 0));
        assertThrows(NullPointerException.class, () -> store.push("w", (DeviceArray) null, 0));
        List<DeviceArray> withNull = new ArrayList<>();
        withNull.add(four);
        withNull.add(null);
        NullPointerException npe = assertThrows(NullPointerException.class, () -> store.pull("w", withNull, 0));
        assertContains(npe, "[1]");
        assertThrows(NullPointerException.class, () -> store.init("x", null));
        assertThrows(NullPointerException.class, () -> store.init(null, four));
        assertThrows(NullPointerException.class, () -> store.setUpdater(null));

        assertEquals(Set.of("w"), store.keys(), "refused calls registered nothing");

        store.push("w", four);
        IllegalStateException late = assertThrows(IllegalStateException.class, () -> store.setUpdater(Updater.sum()));
        assertContains(late, "push");
    }
    @Test
    void afterEndOfDataPushesAreRefusedUntilTheNextBarrierAndPullsStillWork() {
        KVStore store = openOne();
        init(store, "w", devices().get(0), new float[] {1, 2});
        DeviceArray v = array(engine, devices().get(0), 2, "v");
        write(engine, v, new float[] {5, 6});
        store.endOfData();
        store.endOfData(); // idempotent
        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> store.push("w", v));
        assertContains(refused, "endOfData", "barrier");
        assertThrows(IllegalStateException.class, () -> store.pushPull("w", List.of(v), List.of(v), 0));
        DeviceArray out = array(engine, devices().get(0), 2, "out");
        store.pull("w", out);
        assertArrayEquals(new float[] {1, 2}, read(engine, out));
        store.barrier();
        store.push("w", v);
        store.pull("w", out);
        assertArrayEquals(new float[] {5, 6}, read(engine, out));
    }
    // ------------------------------------------------------------------ failures

    @Test
    void aFailedProducerOfAPushedValueFailsThePulledArrayWithTheOriginalCause() {
        KVStore store = openOne();
        Context c = devices().get(0);
        DeviceArray g = array(engine, c, 3, "g");
        RuntimeException boom = pushAFailedGradient(store, g);
        DeviceArray out = array(engine, c, 3, "out");
        store.pull("w", out);
        EngineException e = assertThrows(EngineException.class, () -> engine.waitForVar(out.var(), BOUND));
        assertSame(boom, e.getCause(), "the pulled array carries the producer's failure");

        // reported once, then cleared: the key works again
        write(engine, g, new float[] {7, 8, 9});
        store.push("w", g);
        store.pull("w", out);
        assertArrayEquals(new float[] {7, 8, 9}, read(engine, out), "the key recovered after the failure was reported");
    }
    @Test
    void aFailureOfTheStoreNamesTheKeyAndTheRank() {
        KVStore store = openOne();
        store.setUpdater(new FailingUpdater());
        Context c = devices().get(0);
        init(store, "layer3.weight", c, new float[] {1});
        DeviceArray g = array(engine, c, 1, "g");
        write(engine, g, new float[] {1});
        store.push("layer3.weight", g);
        DeviceArray out = array(engine, c, 1, "out");
        store.pull("layer3.weight", out);
        EngineException e = assertThrows(EngineException.class, () -> engine.waitForVar(out.var(), BOUND));
        KVStoreException kv = findCause(e, KVStoreException.class);
        assertEquals("layer3.weight", kv.key());
        assertEquals(0, kv.rank());
        assertContains(kv, "layer3.weight", "rank 0", "updater failure for the test");
    }
    // ------------------------------------------------------------------ close

    @Test
    void closeFinishesThePushedOpsThenRefusesCalls() throws Exception {
        KVStore store = openOne();
        Context c = devices().get(0);
        init(store, "w", c, new float[] {1, 2});
        DeviceArray v = array(engine, c, 2, "v");
        DeviceArray out = array(engine, c, 2, "out");
        if (threaded()) {
            Held producer = pushHeld(List.of(), List.of(v.var()), "slow producer");
            store.push("w", v);
            store.pull("w", out);
            Thread closer = new Thread(store::close, "closer");
            closer.start();
            awaitThread(closer, s -> s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING,
                    "close() to wait for the store's pending ops");
            assertTrue(closer.isAlive(), "close() returned while a push was still pending");
            producer.complete();
            joinBounded(closer);
        } else {
            write(engine, v, new float[] {0, 0});
            store.push("w", v);
            store.pull("w", out);
            store.close();
        }
        assertTrue(store.isClosed());
        engine.waitForVar(out.var(), BOUND);
        store.close(); // idempotent

        IllegalStateException closed = assertThrows(IllegalStateException.class, () -> store.push("w", v));
        assertContains(closed, "closed");
        assertThrows(IllegalStateException.class, () -> store.pull("w", out));
        assertThrows(IllegalStateException.class, () -> store.pushPull("w", List.of(v), List.of(out), 0));
        assertThrows(IllegalStateException.class, () -> store.init("x", v));
        assertThrows(IllegalStateException.class, () -> store.setUpdater(Updater.sum()));
        assertThrows(IllegalStateException.class, store::barrier);
        assertThrows(IllegalStateException.class, store::endOfData);
    }
}
