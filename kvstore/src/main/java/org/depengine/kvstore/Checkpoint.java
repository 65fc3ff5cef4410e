package org.depengine.kvstore;

import java.io.ByteArrayInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.zip.CRC32;
import java.util.zip.CheckedOutputStream;

/**
 * What {@link KVStore#checkpoint(Path)} writes and the {@code resume} setting reads: every key's value,
 * its optimizer state and update count, and the period they are all as of. An immutable value.
 *
 * <h2>The file (version 1)</h2>
 * Big-endian, as {@link java.io.DataOutput} writes it:
 * <pre>
 * bytes[8]  magic "DEPKVCKP"
 * int       format version: 1
 * int       period: the barriers before the checkpoint; every key is as of round (period, index 0),
 *           i.e. after every round of the periods before and none after
 * UTF       the updater that wrote the state (its toString; for messages)
 * int       the number of keys, then for each, in name order:
 *   UTF       the key's name
 *   UTF       dtype: "float32"
 *   int       the number of dimensions: 1
 *   long      the shape: the key's length n
 *   int       s, the updater's floats of state per element ({@link Updater#stateFloats()}; 0: none)
 *   long      the key's update count (the step of its next update minus one)
 *   float[n]  the value
 *   float[s·n] the state, slot after slot (slot j of element i at j·n + i)
 * long      CRC-32 of every byte before it
 * </pre>
 * A file is written to a temporary sibling and then moved over {@code path}, so a crash leaves the
 * previous checkpoint or the new one, never a mix. A file that is not a checkpoint, has another version,
 * ends early or fails its CRC is refused with a message saying which.
 */
public final class Checkpoint {
    /** The format version this build writes and reads. */
    public static final int VERSION = 1;
    private static final byte[] MAGIC = "DEPKVCKP".getBytes(StandardCharsets.US_ASCII);
    private static final String DTYPE = "float32";

    private final int period;
    private final String updater;
    private final Map<String, Entry> entries;

    /**
     * One key: its value, the updater's state for it ({@code stateFloats} per element) and its update count.
     *
     * @param name the key
     * @param value its value (not copied: do not change it)
     * @param stateFloats the updater's floats of state per element, 0 for none
     * @param state {@code stateFloats · value.length} floats, slot after slot (not copied)
     * @param steps the key's updates so far
     */
    public record Entry(String name, float[] value, int stateFloats, float[] state, long steps) {
        /** @throws IllegalArgumentException if the state's length is not {@code stateFloats · value.length} */
        public Entry {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(value, "value");
            Objects.requireNonNull(state, "state");
            if (stateFloats < 0 || state.length != (long) stateFloats * value.length) {
                throw new IllegalArgumentException("key '" + name + "': " + state.length + " floats of state for "
                        + value.length + " elements with " + stateFloats + " per element");
            }
        }
    }

    /**
     * @param period the barriers before the checkpoint (every entry is as of its end)
     * @param updater a description of the updater (its toString)
     * @param entries one per key, names unique
     * @throws IllegalArgumentException if two entries name one key, or the period is negative
     */
    public Checkpoint(int period, String updater, List<Entry> entries) {
        if (period < 0) {
            throw new IllegalArgumentException("a checkpoint's period is >= 0, got " + period);
        }
        this.period = period;
        this.updater = Objects.requireNonNull(updater, "updater");
        Map<String, Entry> m = new TreeMap<>();
        for (Entry e : entries) {
            if (m.put(e.name(), e) != null) {
                throw new IllegalArgumentException("key '" + e.name() + "' appears twice in a checkpoint");
            }
        }
        this.entries = Collections.unmodifiableMap(m);
    }

    /** The barriers before the checkpoint: a store resumed from it starts in this period. */
    public int period() {
        return period;
    }

    /** The description of the updater that wrote it. */
    public String updater() {
        return updater;
    }

    /** The entries by key name, in name order. */
    public Map<String, Entry> entries() {
        return entries;
    }

    /**
     * The entry of {@code key}, checked against the length an {@code init} gives it.
     *
     * @param source where the checkpoint came from, for messages
     * @throws IllegalArgumentException if the checkpoint has no such key, or holds another length
     */
    public Entry require(String key, long length, String source) {
        Entry e = entries.get(key);
        if (e == null) {
            throw new IllegalArgumentException("init of key '" + key + "': the checkpoint " + source
                    + " has no such key (it holds " + entries.keySet() + "); a resumed job inits the keys it checkpointed");
        }
        if (e.value().length != length) {
            throw new IllegalArgumentException("init of key '" + key + "' with " + length + " floats: the checkpoint "
                    + source + " holds " + e.value().length + " for it; a resumed job inits each key with its old shape");
        }
        return e;
    }

    /**
     * Writes the checkpoint to {@code path} (through a temporary sibling moved over it).
     *
     * @throws UncheckedIOException if it cannot be written
     */
    public void write(Path path) {
        Path tmp = path.resolveSibling(path.getFileName() + ".tmp");
        try {
            CRC32 crc = new CRC32();
            try (OutputStream file = Files.newOutputStream(tmp);
                 DataOutputStream out = new DataOutputStream(new CheckedOutputStream(new BufferedOutputStream(file), crc))) {
                out.write(MAGIC);
                out.writeInt(VERSION);
                out.writeInt(period);
                out.writeUTF(updater);
                out.writeInt(entries.size());
                for (Entry e : entries.values()) {
                    out.writeUTF(e.name());
                    out.writeUTF(DTYPE);
                    out.writeInt(1);
                    out.writeLong(e.value().length);
                    out.writeInt(e.stateFloats());
                    out.writeLong(e.steps());
                    writeFloats(out, e.value());
                    writeFloats(out, e.state());
                }
                out.flush();
                DataOutputStream tail = new DataOutputStream(file); // past the checksummed stream: the CRC is not in its own sum
                tail.writeLong(crc.getValue());
                tail.flush();
            }
            Files.move(tmp, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the kvstore checkpoint " + path + ": " + e.getMessage(), e);
        }
    }

    /**
     * Reads a checkpoint.
     *
     * @throws IllegalArgumentException if the file is not a checkpoint, has another format version, ends
     *     early or fails its CRC (saying which)
     * @throws UncheckedIOException if it cannot be read
     */
    public static Checkpoint read(Path path) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(path);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the kvstore checkpoint " + path + " (setting "
                    + KVStore.PROPERTY_PREFIX + KVStoreSettings.RESUME + "): " + e, e);
        }
        String what = "the kvstore checkpoint " + path;
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            byte[] magic = new byte[MAGIC.length];
            in.readFully(magic);
            if (!Arrays.equals(magic, MAGIC)) {
                throw new IllegalArgumentException(what + " is not a depengine kvstore checkpoint (it does not start "
                        + "with \"DEPKVCKP\")");
            }
            int version = in.readInt();
            if (version != VERSION) {
                throw new IllegalArgumentException(what + " has format version " + version + "; this build reads version "
                        + VERSION + " only: resume with the depengine version that wrote it");
            }
            int period = in.readInt();
            String updater = in.readUTF();
            int n = in.readInt();
            List<Entry> entries = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                String name = in.readUTF();
                String dtype = in.readUTF();
                int dims = in.readInt();
                long length = in.readLong();
                if (!DTYPE.equals(dtype) || dims != 1 || length < 1 || length > bytes.length / Float.BYTES) {
                    throw new IllegalArgumentException(what + " is corrupt: key '" + name + "' has dtype " + dtype + ", "
                            + dims + " dimension(s), length " + length + " (expected float32, 1, 1.." + bytes.length / 4 + ")");
                }
                int stateFloats = in.readInt();
                long steps = in.readLong();
                if (stateFloats < 0 || (long) stateFloats * length > bytes.length / Float.BYTES) {
                    throw new IllegalArgumentException(what + " is corrupt: key '" + name + "' has " + stateFloats
                            + " floats of state per element");
                }
                float[] value = readFloats(in, (int) length);
                float[] state = readFloats(in, (int) (stateFloats * length));
                entries.add(new Entry(name, value, stateFloats, state, steps));
            }
            int summed = bytes.length - in.available();
            long crc = in.readLong();
            CRC32 actual = new CRC32();
            actual.update(bytes, 0, summed);
            if (crc != actual.getValue() || in.available() != 0) {
                throw new IllegalArgumentException(what + " is corrupt: its CRC-32 does not match its content"
                        + (in.available() != 0 ? " (" + in.available() + " bytes after its end)" : ""));
            }
            return new Checkpoint(period, updater, entries);
        } catch (EOFException e) {
            throw new IllegalArgumentException(what + " is truncated (" + bytes.length + " bytes): it ends before its "
                    + "last key and CRC; was it written completely? resume from an earlier checkpoint", e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + what + ": " + e, e);
        }
    }

    private static void writeFloats(DataOutputStream out, float[] a) throws IOException {
        for (float f : a) {
            out.writeFloat(f);
        }
    }

    private static float[] readFloats(DataInputStream in, int n) throws IOException {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = in.readFloat();
        }
        return a;
    }

    @Override
    public String toString() {
        return "Checkpoint(period " + period + ", " + entries.size() + " keys, updater " + updater + ")";
    }
}
