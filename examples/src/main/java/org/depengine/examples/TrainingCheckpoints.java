package org.depengine.examples;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.List;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.FnProperty;
import org.depengine.api.VarHandle;
import org.depengine.api.device.Device;
import org.depengine.api.device.DeviceArray;
import org.depengine.api.device.Devices;
import org.depengine.api.device.primitive.Memcpy;
import org.depengine.kvstore.KVStore;

/**
 * MultiDeviceTraining's checkpoints: every {@code every} epochs the store writes the weights (and the
 * updater's state) with the number of epochs done, kept in the store as the one-float key
 * {@value #PROGRESS}, so a run resumed from the file starts at the next epoch. The shuffles are seeded
 * by the epoch, so the resumed run trains on exactly what the uninterrupted one would have.
 */
final class TrainingCheckpoints {
    /** The key of the epochs done: rank 0 pushes the count and the others zero (the store sums a round). */
    static final String PROGRESS = "progress";

    private final Engine engine;
    private final KVStore kv;
    private final int every;
    private final Path file;
    private final Memcpy memcpy;
    private final DeviceArray progress;
    private final ByteBuffer host = ByteBuffer.allocateDirect(Float.BYTES).order(ByteOrder.nativeOrder());

    /**
     * @param every checkpoint after every this many epochs; 0 for never
     * @param file where rank 0 writes them (each replaces the last)
     * @param onHost the CPU context of the progress array
     */
    TrainingCheckpoints(Engine engine, KVStore kv, int every, Path file, Context onHost) {
        this.engine = engine;
        this.kv = kv;
        this.every = every;
        this.file = file;
        Device device = Devices.device(onHost);
        memcpy = device.requirePrimitive(Memcpy.class);
        progress = new DeviceArray(device.allocate(Float.BYTES), engine.newVariable("epochs done"));
    }

    /** Inits the progress key (0, or the checkpoint's count when the store resumed) and returns the epochs done; waits. */
    int start() {
        write(0);
        kv.init(PROGRESS, progress);
        kv.pull(PROGRESS, progress);
        VarHandle read = engine.newVariable("read epochs done");
        engine.pushSync(rc -> memcpy.deviceToHost(rc.stream(), progress.buffer(), progress.offsetBytes(), host.duplicate()),
                progress.context(), List.of(progress.var()), List.of(read), FnProperty.COPY_FROM_DEVICE, 0, "read epochs done");
        engine.waitForVar(read);
        return (int) host.getFloat(0);
    }

    /**
     * After epoch {@code done} (counted from 1): if it is a checkpoint epoch, records the count, waits for
     * this worker's ops, and every worker meets rank 0 around its checkpoint (the store's contract: a
     * barrier before, no push until the barrier after).
     *
     * @return whether a checkpoint was written
     */
    boolean after(int done) {
        if (every == 0 || done % every != 0) {
            return false;
        }
        // dist_sync needs every rank's push for the round; dist_async applies each push, so only rank 0's.
        if (kv.rank() == 0 || !kv.type().equals("dist_async")) {
            write(kv.rank() == 0 ? done : 0);
            kv.push(PROGRESS, progress);
        }
        engine.waitForAll();
        kv.barrier();
        if (kv.rank() == 0) {
            kv.checkpoint(file);
        }
        kv.barrier();
        return true;
    }

    /** Where the checkpoints go. */
    Path file() {
        return file;
    }

    private void write(float value) {
        ByteBuffer v = ByteBuffer.allocateDirect(Float.BYTES).order(ByteOrder.nativeOrder()).putFloat(0, value);
        engine.pushSync(rc -> memcpy.hostToDevice(rc.stream(), v.duplicate(), progress.buffer(), progress.offsetBytes()),
                progress.context(), List.of(), List.of(progress.var()), FnProperty.COPY_TO_DEVICE, 0, "epochs done = " + value);
    }
}
