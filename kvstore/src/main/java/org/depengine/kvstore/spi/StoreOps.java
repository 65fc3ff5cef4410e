package org.depengine.kvstore.spi;

import java.nio.ByteBuffer;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.depengine.api.AsyncFn;
import org.depengine.api.CallbackOnComplete;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.FnProperty;
import org.depengine.api.RunContext;
import org.depengine.api.VarHandle;
import org.depengine.api.device.DeviceArray;
import org.depengine.api.device.primitive.Memcpy;
import org.depengine.kvstore.KVStoreException;

/**
 * Pushes the ops of a store's {@code init}, {@code push} and {@code pull} calls (the table in
 * {@link AbstractKVStore}'s Javadoc) and wraps its hooks so that their failures name the key, the rank,
 * the round and the step. Called with the store's arguments already checked; thread-safe (it holds no
 * state of its own).
 */
final class StoreOps {
    private final AbstractKVStore store;
    private final Engine engine;

    StoreOps(AbstractKVStore store) {
        this.store = store;
        this.engine = store.engine();
    }

    /** Round 0 of a key: copy the value to the host, then {@link AbstractKVStore#sendInit}. */
    void init(Key k, DeviceArray value, Memcpy memcpy) {
        String key = k.name();
        engine.pushSync(rc -> memcpy.deviceToHost(rc.stream(), value.buffer(), value.offsetBytes(), k.storedBytes()),
                value.context(), List.of(value.var()), List.of(k.storeVar()), FnProperty.COPY_FROM_DEVICE, 0,
                "kvstore init " + key + ": copy " + value + " to host");
        engine.pushAsync(hook(k, 0, "init", (key1, r, done) -> store.sendInit(key1, done)), Context.cpu(), List.of(),
                List.of(k.storeVar()), store.storeOpProperty(), 0, "kvstore init " + key);
    }

    /** A push of the next round: gather the values into {@code merged} (summing several), then send. */
    void push(Key k, List<DeviceArray> values, int priority) {
        long round = k.nextRound();
        if (values.size() == 1) {
            DeviceArray v = values.get(0);
            Memcpy memcpy = v.device().requirePrimitive(Memcpy.class);
            engine.pushSync(rc -> memcpy.deviceToHost(rc.stream(), v.buffer(), v.offsetBytes(), k.mergedBytes()),
                    v.context(), List.of(v.var()), List.of(k.mergedVar()), FnProperty.COPY_FROM_DEVICE, priority,
                    "kvstore push " + k.name() + " round " + round + ": copy " + v + " to host");
        } else {
            List<ByteBuffer> parts = new ArrayList<>(values.size());
            List<VarHandle> partVars = new ArrayList<>(values.size());
            for (int i = 0; i < values.size(); i++) {
                DeviceArray v = values.get(i);
                Memcpy memcpy = v.device().requirePrimitive(Memcpy.class);
                Key.Staging s = k.staging(engine, i, v);
                ByteBuffer host = s.buffer().duplicate().order(s.buffer().order());
                engine.pushSync(rc -> memcpy.deviceToHost(rc.stream(), v.buffer(), v.offsetBytes(), host),
                        v.context(), List.of(v.var()), List.of(s.var()), FnProperty.COPY_FROM_DEVICE, priority,
                        "kvstore push " + k.name() + " round " + round + ": copy " + v + " to host");
                parts.add(host);
                partVars.add(s.var());
            }
            engine.pushSync(rc -> sum(parts, k.merged()), Context.cpu(), partVars, List.of(k.mergedVar()),
                    FnProperty.CPU_PRIORITIZED, priority, "kvstore push " + k.name() + " round " + round + ": sum "
                            + values.size() + " values");
        }
        engine.pushAsync(hook(k, round, "send", (key, r, done) -> {
            key.lastSent = r;
            store.send(key, r, done);
        }), Context.cpu(), List.of(k.mergedVar()), List.of(k.storeVar()), store.storeOpProperty(), priority,
                "kvstore push " + k.name() + " round " + round);
        if (store.reportsSkippedPushes()) {
            engine.pushAsync(hook(k, round, "report of a skipped push", (key, r, done) -> {
                if (key.lastSent == r) {
                    done.complete();
                } else {
                    store.skippedSend(key, r, done);
                }
            }), Context.cpu(), List.of(k.storeVar()), List.of(), FnProperty.NO_SKIP, priority,
                    "kvstore push " + k.name() + " round " + round + ": check it was sent");
        }
    }

    /** A pull of this worker's last round: fetch (if the store does), then copy to each out. */
    void pull(Key k, List<DeviceArray> outs, int priority) {
        long round = k.rounds();
        if (store.pullFetches()) {
            engine.pushAsync(hook(k, round, "fetch", store::fetch), Context.cpu(),
                    List.of(), List.of(k.storeVar()), store.storeOpProperty(), priority,
                    "kvstore pull " + k.name() + " round " + round);
        }
        for (DeviceArray out : outs) {
            Memcpy memcpy = out.device().requirePrimitive(Memcpy.class);
            engine.pushSync(rc -> memcpy.hostToDevice(rc.stream(), k.storedBytes(), out.buffer(), out.offsetBytes()),
                    out.context(), List.of(k.storeVar()), List.of(out.var()), scatterProperty(out), priority,
                    "kvstore pull " + k.name() + " round " + round + ": copy to " + out);
        }
    }

    /**
     * The property of the copies into pulled arrays: on a CPU device they are host work that should
     * jump the queue ({@link FnProperty#CPU_PRIORITIZED}, so pull priorities order them), on another
     * device host-to-device copies.
     */
    private static FnProperty scatterProperty(DeviceArray out) {
        return out.context().isCpu() ? FnProperty.CPU_PRIORITIZED : FnProperty.COPY_TO_DEVICE;
    }

    private static void sum(List<ByteBuffer> parts, FloatBuffer merged) {
        int n = merged.limit();
        FloatBuffer[] ps = new FloatBuffer[parts.size()];
        for (int i = 0; i < ps.length; i++) {
            ps[i] = parts.get(i).duplicate().order(parts.get(i).order()).asFloatBuffer();
        }
        for (int j = 0; j < n; j++) {
            float s = 0; // from 0 in list order, so the result does not depend on which value arrived first
            for (FloatBuffer p : ps) {
                s += p.get(j);
            }
            merged.put(j, s);
        }
    }

    /** A hook as called by {@link #hook}. */
    @FunctionalInterface
    private interface Hook {
        void call(Key key, long round, CallbackOnComplete done) throws Exception;
    }

    /** Wraps a hook as an op body whose failures name the key, this rank, the round and the step. */
    private AsyncFn hook(Key k, long round, String step, Hook hook) {
        return (RunContext rc, CallbackOnComplete done) -> {
            CallbackOnComplete named = new CallbackOnComplete() {
                @Override
                public void complete() {
                    done.complete();
                }

                @Override
                public void fail(Throwable error) {
                    done.fail(named(k, round, step, Objects.requireNonNull(error, "error")));
                }
            };
            try {
                hook.call(k, round, named);
            } catch (Exception | Error e) {
                throw named(k, round, step, e);
            }
        };
    }

    private KVStoreException named(Key k, long round, String step, Throwable error) {
        if (error instanceof KVStoreException e) {
            return e;
        }
        return new KVStoreException(k.name(), store.rank(), step + " of round " + round + " failed", error);
    }
}
