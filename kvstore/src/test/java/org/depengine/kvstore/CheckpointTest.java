package org.depengine.kvstore;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The checkpoint file: what is written is read back, and a damaged or foreign file is refused saying why. */
class CheckpointTest {
    @TempDir
    Path dir;

    private Path written() {
        Path p = dir.resolve("c.ckpt");
        new Checkpoint(3, "adam(...)", List.of(
                new Checkpoint.Entry("w", new float[] {1, 2, 3}, 2, new float[] {1, 2, 3, 4, 5, 6}, 7),
                new Checkpoint.Entry("b", new float[] {-1}, 0, new float[0], 7))).write(p);
        return p;
    }

    @Test
    void whatIsWrittenIsReadBack() {
        Checkpoint c = Checkpoint.read(written());
        assertEquals(3, c.period());
        assertEquals("adam(...)", c.updater());
        assertEquals(List.of("b", "w"), List.copyOf(c.entries().keySet()), "in name order");
        Checkpoint.Entry w = c.entries().get("w");
        assertArrayEquals(new float[] {1, 2, 3}, w.value());
        assertArrayEquals(new float[] {1, 2, 3, 4, 5, 6}, w.state());
        assertEquals(2, w.stateFloats());
        assertEquals(7, w.steps());
        IllegalArgumentException shape = assertThrows(IllegalArgumentException.class, () -> c.require("w", 4, "c.ckpt"));
        assertTrue(shape.getMessage().contains("holds 3"), shape.getMessage());
        IllegalArgumentException missing = assertThrows(IllegalArgumentException.class, () -> c.require("x", 1, "c.ckpt"));
        assertTrue(missing.getMessage().contains("has no such key"), missing.getMessage());
    }

    @Test
    void aTruncatedFileIsRefusedAsTruncated() throws Exception {
        Path p = written();
        byte[] all = Files.readAllBytes(p);
        for (int cut : new int[] {4, 20, all.length - 9, all.length - 1}) {
            Files.write(p, Arrays.copyOf(all, cut));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Checkpoint.read(p));
            assertTrue(e.getMessage().contains("truncated"), cut + " bytes: " + e.getMessage());
        }
    }

    @Test
    void anotherVersionAForeignFileAndAChangedByteAreRefusedSayingWhich() throws Exception {
        Path p = written();
        byte[] all = Files.readAllBytes(p);
        byte[] v2 = all.clone();
        ByteBuffer.wrap(v2).putInt(8, 2);
        Files.write(p, v2);
        IllegalArgumentException version = assertThrows(IllegalArgumentException.class, () -> Checkpoint.read(p));
        assertTrue(version.getMessage().contains("format version 2") && version.getMessage().contains("version 1 only"),
                version.getMessage());

        Files.writeString(p, "hello, not a checkpoint at all");
        IllegalArgumentException foreign = assertThrows(IllegalArgumentException.class, () -> Checkpoint.read(p));
        assertTrue(foreign.getMessage().contains("not a depengine kvstore checkpoint"), foreign.getMessage());

        byte[] flipped = all.clone();
        flipped[all.length - 12] ^= 1; // inside the last float of the state
        Files.write(p, flipped);
        IllegalArgumentException crc = assertThrows(IllegalArgumentException.class, () -> Checkpoint.read(p));
        assertTrue(crc.getMessage().contains("CRC-32"), crc.getMessage());
    }
}
