package org.depengine.kvstore;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.FloatBuffer;
import org.junit.jupiter.api.Test;

class UpdaterTest {

    private static float[] apply(Updater u, float[] merged, float[] stored) {
        float[] s = stored.clone();
        u.update("k", FloatBuffer.wrap(merged).asReadOnlyBuffer(), FloatBuffer.wrap(s));
        return s;
    }

    @Test
    void builtInsComputeWhatTheySay() {
        float[] merged = {1, 2, -4};
        float[] stored = {10, 20, 30};
        assertArrayEquals(new float[] {1, 2, -4}, apply(Updater.assign(), merged, stored));
        assertArrayEquals(new float[] {11, 22, 26}, apply(Updater.sum(), merged, stored));
        assertArrayEquals(new float[] {9.5f, 19, 32}, apply(Updater.sgd(0.5f), merged, stored));
        assertThrows(IllegalArgumentException.class, () -> Updater.sgd(Float.NaN));
    }

    @Test
    void builtInsSurviveSerialisation() throws Exception {
        assertSame(Updater.assign(), roundTrip(Updater.assign()));
        assertSame(Updater.sum(), roundTrip(Updater.sum()));
        Updater sgd = roundTrip(Updater.sgd(0.25f));
        assertEquals(Updater.sgd(0.25f), sgd);
        assertEquals("sgd(learningRate=0.25)", sgd.toString());
    }

    @Test
    void aStoreFailureNamesTheKeyTheRankAndTheCause() {
        KVStoreException e = new KVStoreException("fc1.w", 2, "round 5: rank 1 was lost", new IllegalStateException("gone"));
        assertEquals("fc1.w", e.key());
        assertEquals(2, e.rank());
        assertTrue(e.getMessage().contains("'fc1.w'") && e.getMessage().contains("rank 2")
                && e.getMessage().contains("round 5") && e.getMessage().contains("gone"), e.getMessage());
        assertTrue(e instanceof org.depengine.api.EngineException);
    }

    private static Updater roundTrip(Updater u) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(u);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            return (Updater) in.readObject();
        }
    }
}
