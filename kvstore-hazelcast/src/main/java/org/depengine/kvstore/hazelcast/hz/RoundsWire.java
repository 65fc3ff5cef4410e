package org.depengine.kvstore.hazelcast.hz;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import java.io.IOException;
import org.depengine.kvstore.hazelcast.protocol.RoundState;

/** How a {@link RoundState} of float arrays travels inside a {@link KeyState}: its fields, then its pending slots. */
final class RoundsWire {
    private RoundsWire() {
    }

    static void write(ObjectDataOutput out, RoundState<float[]> r) throws IOException {
        int workers = r.workers();
        out.writeInt(workers);
        out.writeBoolean(r.async());
        out.writeBoolean(r.isReady());
        out.writeLong(r.completed());
        int[] ended = new int[workers];
        long[] last = new long[workers];
        for (int i = 0; i < workers; i++) {
            ended[i] = r.endedPeriod(i);
            last[i] = r.lastPushed(i);
        }
        out.writeIntArray(ended);
        out.writeLongArray(last);
        out.writeString(r.failure());
        out.writeLong(r.failedAfter());
        out.writeInt(r.pendingCount() * workers);
        IOException[] failed = new IOException[1];
        r.forEachPending((round, rank, kind, data) -> {
            try {
                out.writeLong(round);
                out.writeInt(rank);
                out.writeByte(kind.ordinal());
                if (kind == RoundState.SlotKind.DATA) {
                    out.writeFloatArray(data);
                }
            } catch (IOException e) {
                failed[0] = e;
            }
        });
        if (failed[0] != null) {
            throw failed[0];
        }
    }

    static RoundState<float[]> read(ObjectDataInput in) throws IOException {
        int workers = in.readInt();
        RoundState<float[]> r = new RoundState<>(workers, in.readBoolean());
        boolean ready = in.readBoolean();
        long completed = in.readLong();
        int[] ended = in.readIntArray();
        long[] last = in.readLongArray();
        String failure = in.readString();
        long failedAfter = in.readLong();
        RoundState.Restorer<float[]> slots = r.restore(ready, completed, ended, last, failure, failedAfter);
        int n = in.readInt();
        RoundState.SlotKind[] kinds = RoundState.SlotKind.values();
        for (int i = 0; i < n; i++) {
            long round = in.readLong();
            int rank = in.readInt();
            RoundState.SlotKind kind = kinds[in.readByte()];
            slots.slot(round, rank, kind, kind == RoundState.SlotKind.DATA ? in.readFloatArray() : null);
        }
        return r;
    }
}
