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

    /** One stateful update of {@code stored} (in place) with {@code state}. */
    private static void step(Updater u, float[] merged, float[] stored, float[] state, long step) {
        u.update("k", FloatBuffer.wrap(merged).asReadOnlyBuffer(), FloatBuffer.wrap(stored), FloatBuffer.wrap(state), step);
    }

    @Test
    void momentumSgdFollowsMxnetsFormula() {
        Updater u = Updater.sgd(0.5f, 0.9f, 0f, 1f);
        assertEquals(1, u.stateFloats());
        float[] w = {10};
        float[] mom = new float[1];
        step(u, new float[] {2}, w, mom, 1);
        assertArrayEquals(new float[] {-1}, mom, "mom = 0.9 · 0 − 0.5 · 2");
        assertArrayEquals(new float[] {9}, w);
        step(u, new float[] {2}, w, mom, 2);
        assertEquals(-1.9f, mom[0], 1e-6f, "mom = 0.9 · −1 − 0.5 · 2");
        assertEquals(7.1f, w[0], 1e-6f);

        float[] w2 = {10};
        step(Updater.sgd(0.5f, 0.9f, 0.1f, 0.5f), new float[] {2}, w2, new float[1], 1);
        assertArrayEquals(new float[] {9}, w2, "g = 0.5 · 2 + 0.1 · 10 = 2: the rescale and the weight decay");
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
                () -> u.update("k", FloatBuffer.allocate(1), FloatBuffer.allocate(1)));
        assertTrue(e.getMessage().contains("keeps state"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Updater.sgd(0.1f, 1f, 0f, 1f));
    }

    @Test
    void adamFollowsMxnetsFormulaWithTheBiasCorrectionOfItsStep() {
        Updater u = Updater.adam(0.1f);
        assertEquals(2, u.stateFloats());
        float[] w = {1, 1};
        float[] state = new float[4];
        step(u, new float[] {2, -4}, w, state, 1);
        // m = 0.1 · g, v = 0.001 · g², lr_1 = 0.1 · √0.001 / 0.1: the first step moves each weight by lr · sign(g)
        assertEquals(0.2f, state[0], 1e-7f);
        assertEquals(-0.4f, state[1], 1e-7f);
        assertEquals(0.004f, state[2], 1e-6f); // 1 − 0.999f is not exactly 0.001 in float
        assertEquals(0.016f, state[3], 1e-6f);
        assertEquals(0.9f, w[0], 1e-5f);
        assertEquals(1.1f, w[1], 1e-5f);
        step(u, new float[] {2, -4}, w, state, 2);
        assertEquals(0.8f, w[0], 1e-5f, "a constant gradient: each bias-corrected step moves by lr");
        assertThrows(IllegalArgumentException.class, () -> Updater.adam(0.1f, 0.9f, 0.999f, 0f, 0f, 1f));
    }

    @Test
    void builtInsSurviveSerialisation() throws Exception {
        assertSame(Updater.assign(), roundTrip(Updater.assign()));
        assertSame(Updater.sum(), roundTrip(Updater.sum()));
        Updater sgd = roundTrip(Updater.sgd(0.25f));
        assertEquals(Updater.sgd(0.25f), sgd);
        assertEquals("sgd(learningRate=0.25)", sgd.toString());
        assertEquals(Updater.sgd(0.1f, 0.9f, 0.01f, 0.5f), roundTrip(Updater.sgd(0.1f, 0.9f, 0.01f, 0.5f)));
        assertEquals(Updater.adam(0.01f), roundTrip(Updater.adam(0.01f)));
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
