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

/** The updater where it runs: on every push's sum, a custom one, and the stateful ones (momentum, Adam) against a serial model with the configuration's workers. */
@Workers({1, 2, 3})
public abstract class UpdatersSuite extends KVStoreSuite {
    // ------------------------------------------------------------------ updater

    @Test
    void theUpdaterRunsOnEveryPushWithTheSumAndTheStoredValue() {
        KVStore store = openOne();
        store.setUpdater(Updater.sgd(0.5f));
        init(store, "w", devices().get(0), new float[] {10, 20, 30});
        List<DeviceArray> grads = new ArrayList<>();
        for (Context c : devices()) {
            DeviceArray g = array(engine, c, 3, "g");
            write(engine, g, new float[] {1, 2, 4});
            grads.add(g);
        }
        for (int step = 0; step < 3; step++) {
            store.push("w", grads, 0);
        }
        DeviceArray out = array(engine, devices().get(0), 3, "out");
        store.pull("w", out);
        float k = 3 * 0.5f * devices().size();
        assertArrayEquals(new float[] {10 - k, 20 - 2 * k, 30 - 4 * k}, read(engine, out), "w -= lr · Σ grads, 3 steps");
    }
    @Test
    void aCustomUpdaterSeesTheKeyTheMergedSumAndTheStoredValue() {
        KVStore store = openOne();
        store.setUpdater(new ScaledSum(2));
        init(store, "a", devices().get(0), new float[] {1, 1});
        init(store, "b", devices().get(0), new float[] {5, 5});
        DeviceArray v = array(engine, devices().get(0), 2, "v");
        write(engine, v, new float[] {3, 4});
        store.push("a", v);
        store.push("b", v);
        DeviceArray out = array(engine, devices().get(0), 2, "out");
        store.pull("a", out);
        assertArrayEquals(new float[] {1 + 6, 1 + 8}, read(engine, out));
        store.pull("b", out);
        assertArrayEquals(new float[] {5 + 6 + 100, 5 + 8 + 100}, read(engine, out), "the updater saw key 'b'");
    }
    @Test
    void momentumSgdKeepsItsStatePerKeyAndChunkAsTheSerialModel() {
        trainsAsTheSerialModel(Updater.sgd(0.05f, 0.9f, 0.01f, 0.5f));
    }
    @Test
    void adamKeepsItsStatePerKeyAndChunkAsTheSerialModel() {
        trainsAsTheSerialModel(Updater.adam(0.01f, 0.9f, 0.999f, 1e-8f, 0.001f, 1f));
    }

    private void trainsAsTheSerialModel(Updater updater) {
        List<KVStore> stores = openWorkers(trainingWorkers(), SPLIT);
        SerialTraining model = new SerialTraining(updater, TRAINED_KEYS, stores.size(), 7);
        startTraining(stores, updater, model, false);
        for (int round = 1; round <= 4; round++) {
            trainRound(stores, model, round);
        }
    }
}
