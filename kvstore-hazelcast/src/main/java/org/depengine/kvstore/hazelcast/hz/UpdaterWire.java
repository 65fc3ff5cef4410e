package org.depengine.kvstore.hazelcast.hz;

import com.hazelcast.internal.serialization.SerializationService;
import com.hazelcast.internal.serialization.impl.HeapData;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.spi.impl.SerializationServiceSupport;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import org.depengine.kvstore.Updater;

/**
 * How an updater travels in an op or a key's state: the bytes of Hazelcast's serialization of it (Java
 * serialization, under the members' class filter: {@code UpdaterClasses}), as a byte array. A built-in
 * updater (immutable: its fields are final and its update keeps no state of its own) is serialized once
 * per instance and deserialized once per distinct bytes in this process, so a push of a small key does
 * not pay Java serialization at each hop (push, backup, event); any other updater class is serialized and
 * deserialized at every hop, as it may change its own fields.
 */
final class UpdaterWire {
    /** The built-in classes whose instances never change, so one instance may serve every op that names it. */
    private static final Set<Class<?>> IMMUTABLE = Set.of(org.depengine.kvstore.optimizers.Assign.class, org.depengine.kvstore.optimizers.Sum.class, org.depengine.kvstore.optimizers.Sgd.class,
            org.depengine.kvstore.optimizers.MomentumSgd.class, org.depengine.kvstore.optimizers.Adam.class);
    /** A bound on each cache below: past it the cache is emptied (a job uses a handful of updaters). */
    private static final int MAX_CACHED = 64;
    /** Built-in updaters (by identity: they do not override equals) → their serialized bytes. */
    private static final Map<Updater, byte[]> WRITTEN = Collections.synchronizedMap(new WeakHashMap<>());
    /** Serialized bytes of a built-in updater → the updater they were read as. */
    private static final Map<ByteBuffer, Updater> READ = new ConcurrentHashMap<>();

    private UpdaterWire() {
    }

    static void write(ObjectDataOutput out, Updater updater) throws IOException {
        if (updater == null) {
            out.writeByteArray(null);
            return;
        }
        byte[] bytes = IMMUTABLE.contains(updater.getClass()) ? WRITTEN.get(updater) : null;
        if (bytes == null) {
            bytes = serialization(out).toData(updater).toByteArray();
            if (IMMUTABLE.contains(updater.getClass())) {
                if (WRITTEN.size() >= MAX_CACHED) {
                    WRITTEN.clear();
                }
                WRITTEN.put(updater, bytes);
            }
        }
        out.writeByteArray(bytes);
    }

    /** Reads an updater; a class the members' filter refuses throws Hazelcast's refusal. */
    static Updater read(ObjectDataInput in) throws IOException {
        byte[] bytes = in.readByteArray();
        if (bytes == null) {
            return null;
        }
        ByteBuffer key = ByteBuffer.wrap(bytes);
        Updater cached = READ.get(key);
        if (cached != null) {
            return cached;
        }
        Updater u = serialization(in).toObject(new HeapData(bytes));
        if (u != null && IMMUTABLE.contains(u.getClass())) {
            if (READ.size() >= MAX_CACHED) {
                READ.clear();
            }
            READ.put(key, u);
        }
        return u;
    }

    private static SerializationService serialization(Object stream) {
        if (stream instanceof SerializationServiceSupport s) {
            return s.getSerializationService();
        }
        throw new IllegalStateException("an updater is written only by Hazelcast's serialization, not by "
                + stream.getClass().getName());
    }
}
