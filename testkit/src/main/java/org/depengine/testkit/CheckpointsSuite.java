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

/** Checkpoints and resume with the configuration's workers. */
@Workers({1, 2, 3})
public abstract class CheckpointsSuite extends KVStoreSuite {
    /**
     * MXNet's save/load of weights and optimizer state: a checkpoint written between two barriers, then
     * a fresh store opened with {@code resume} (its inits' values ignored), gives the values that
     * continuing the first store gives, round for round.
     */
    @Test
    void aCheckpointResumedInAFreshStoreGivesTheValuesOfContinuing() {
        Updater adam = Updater.adam(0.01f);
        int workers = trainingWorkers();
        List<KVStore> stores = openWorkers(workers, SPLIT);
        SerialTraining model = new SerialTraining(adam, TRAINED_KEYS, workers, 11);
        startTraining(stores, adam, model, false);
        for (int round = 1; round <= 3; round++) {
            trainRound(stores, model, round);
        }
        Path file = checkpoints.resolve("job.ckpt");
        barrierAll(stores);
        stores.get(0).checkpoint(file);
        barrierAll(stores);
        Checkpoint written = Checkpoint.read(file);
        assertEquals(1, written.period(), "one barrier before the checkpoint");
        for (String key : model.keys()) {
            Checkpoint.Entry e = written.entries().get(key);
            assertArrayEquals(model.weights(key), e.value(), "checkpointed weights of " + key);
            assertArrayEquals(model.state(key), e.state(), "checkpointed Adam state of " + key);
            assertEquals(3, e.steps(), "updates of " + key);
        }
        for (int round = 4; round <= 6; round++) {
            trainRound(stores, model, round); // continuing: the model is checked against the store
        }
        stores.forEach(KVStore::close);

        SerialTraining replay = new SerialTraining(adam, TRAINED_KEYS, workers, 11);
        for (int round = 1; round <= 3; round++) {
            replay.round(round);
        }
        Map<String, String> resume = new HashMap<>(SPLIT);
        resume.put("resume", file.toString());
        List<KVStore> resumed = openWorkers(workers, resume);
        for (KVStore s : resumed) {
            assertEquals(1, s.period(), "a resumed store starts in the checkpoint's period (rank " + s.rank() + ")");
        }
        startTraining(resumed, adam, replay, true);
        assertPulled(resumed, replay, "after the resume");
        for (int round = 4; round <= 6; round++) {
            trainRound(resumed, replay, round);
        }
        assertArrayEquals(model.weights("b"), replay.weights("b"), "resumed = continued (the same model twice)");
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> init(resumed.get(0), "c", devices().get(0), new float[] {1}));
        assertContains(unknown, "'c'", "has no such key", file.toString());
    }
    @Test
    void aCheckpointAfterAFailedPushFailsWithItsCauseInsteadOfSavingAStaleValue() {
        KVStore store = openOne();
        RuntimeException boom = pushAFailedGradient(store, array(engine, devices().get(0), 3, "g"));
        store.barrier();
        Path file = checkpoints.resolve("failed.ckpt");
        KVStoreException e = assertThrows(KVStoreException.class, () -> store.checkpoint(file));
        assertContains(e, "checkpoint " + file, "misses a push", "nothing was written");
        Throwable cause = e;
        while (cause != null && cause != boom) {
            cause = cause.getCause();
        }
        assertSame(boom, cause, "the failure's cause is the producer's: " + e);
        assertTrue(!java.nio.file.Files.exists(file), "no file for a failed checkpoint");
    }
    @Test
    @Needs(workers = 2)
    void aCheckpointOnAnotherRankThanZeroIsRefused() {
        List<KVStore> stores = openWorkers(2);
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> stores.get(1).checkpoint(checkpoints.resolve("x")));
        assertContains(e, "rank 1", "rank 0 writes the checkpoints");
    }
}
