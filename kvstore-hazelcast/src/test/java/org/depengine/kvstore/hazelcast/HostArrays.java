package org.depengine.kvstore.hazelcast;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.List;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.FnProperty;
import org.depengine.api.VarHandle;
import org.depengine.api.device.DeviceArray;
import org.depengine.api.device.Devices;

/** The tests' CPU arrays of floats: made, written and read through an engine's ops; and pulls into them. */
final class HostArrays {
    private HostArrays() {
    }

    /** An array of {@code floats} floats on the CPU, with a variable of its own. */
    static DeviceArray array(Engine e, String name, int floats) {
        return new DeviceArray(Devices.device(Context.cpu()).allocate(4L * floats), e.newVariable(name));
    }

    /** Writes {@code data} into {@code a}, by an op after every op on it. */
    static void write(Engine e, DeviceArray a, float[] data) {
        ByteBuffer b = ByteBuffer.allocateDirect(4 * data.length).order(ByteOrder.nativeOrder());
        b.asFloatBuffer().put(data);
        e.pushSync(rc -> ChildWorker.memcpy().hostToDevice(rc.stream(), b.duplicate(), a.buffer(), a.offsetBytes()),
                Context.cpu(), List.of(), List.of(a.var()), FnProperty.COPY_TO_DEVICE, 0, "write " + a);
    }

    /** The first {@code floats} floats of {@code a}, once its writes are done (waiting up to 60 s). */
    static float[] read(Engine e, DeviceArray a, int floats) {
        ByteBuffer host = ByteBuffer.allocateDirect(4 * floats).order(ByteOrder.nativeOrder());
        VarHandle done = e.newVariable("read " + a);
        e.pushSync(rc -> ChildWorker.memcpy().deviceToHost(rc.stream(), a.buffer(), a.offsetBytes(), host), Context.cpu(),
                List.of(a.var()), List.of(done), FnProperty.NORMAL, 0, "read " + a);
        e.waitForVar(done, Duration.ofSeconds(60));
        float[] got = new float[floats];
        host.asFloatBuffer().get(got);
        return got;
    }

    /**
     * Pulls {@code key} into each of {@code ranks}' array ({@code arrays} by rank; the stores' and engines' by
     * rank too) and returns the value, after checking that every one of them pulled the same.
     */
    static float[] pullOnEach(List<org.depengine.kvstore.KVStore> stores, List<Engine> engines, Iterable<Integer> ranks,
                              String key, DeviceArray[] arrays, int floats, String when) {
        float[] first = null;
        for (int r : ranks) {
            stores.get(r).pull(key, arrays[r]);
            float[] got = read(engines.get(r), arrays[r], floats);
            if (first != null) {
                org.junit.jupiter.api.Assertions.assertArrayEquals(first, got, key + " " + when
                        + ": the survivors' copies differ");
            }
            first = got;
        }
        return first;
    }
}
