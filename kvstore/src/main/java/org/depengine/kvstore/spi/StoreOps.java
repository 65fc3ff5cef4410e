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
import org.depengine.kvstore.Checkpoint;
import org.depengine.kvstore.KVStoreException;

/**
 * Pushes the ops of a store's {@code init}, {@code push}, {@code pull}, {@code endOfData} and
 * {@code barrier} calls (the table in {@link AbstractKVStore}'s Javadoc) and wraps its hooks so that
 * their failures name the key, the rank, the round and the step. Called with the store's arguments already checked; thread-safe (it holds no
 * state of its own).
 */
final class StoreOps {
    private final AbstractKVStore store;
    private final Engine engine;

    StoreOps(AbstractKVStore store) {
        this.store = store;
        this.engine = store.engine();
    }

    /**
     * Round 0 of a key: copy the value to the host, then {@link AbstractKVStore#sendInit}; a key resumed
     * from a checkpoint ({@code resumed} not null) takes the checkpoint's value and state instead, as of
     * {@code resumedRound}.
     */
    void init(Key k, DeviceArray value, Memcpy memcpy, Checkpoint.Entry resumed, long resumedRound) {
        String key = k.name();
        engine.pushSync(rc -> memcpy.deviceToHost(rc.stream(), value.buffer(), value.offsetBytes(), k.storedBytes()),
                value.context(), List.of(value.var()), List.of(k.storeVar()), FnProperty.COPY_FROM_DEVICE, 0,
                "kvstore init " + key + ": copy " + value + " to host");
        engine.pushAsync(hook(k, 0, "init", (key1, r, done) -> {
            if (resumed != null) {
                key1.restore(resumed, resumedRound);
            }
            store.sendInit(key1, done);
        }), Context.cpu(), List.of(),
                List.of(k.storeVar()), store.storeOpProperty(), 0, "kvstore init " + key);
    }

    /** A push of {@code round} (decided at the call): gather the values into {@code merged} (summing several), then send. */
    void push(Key k, long round, List<DeviceArray> values, int priority) {
        String label = "kvstore push " + k.name() + " round " + Rounds.text(round);
        if (values.size() == 1) {
            DeviceArray v = values.get(0);
            Memcpy memcpy = v.device().requirePrimitive(Memcpy.class);
            engine.pushSync(rc -> memcpy.deviceToHost(rc.stream(), v.buffer(), v.offsetBytes(), k.mergedBytes()),
                    v.context(), List.of(v.var()), List.of(k.mergedVar()), FnProperty.COPY_FROM_DEVICE, priority,
                    label + ": copy " + v + " to host");
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
                        label + ": copy " + v + " to host");
                parts.add(host);
                partVars.add(s.var());
            }
            engine.pushSync(rc -> sum(parts, k.merged()), Context.cpu(), partVars, List.of(k.mergedVar()),
                    FnProperty.CPU_PRIORITIZED, priority, label + ": sum " + values.size() + " values");
        }
        engine.pushAsync(hook(k, round, "send", (key, r, done) -> {
            key.lastSent = r;
            store.send(key, r, done);
        }), Context.cpu(), List.of(k.mergedVar()), List.of(k.storeVar()), store.storeOpProperty(), priority, label);
        if (store.reportsSkippedPushes()) {
            engine.pushAsync(hook(k, round, "report of a skipped push", (key, r, done) -> {
                if (key.lastSent == r) {
                    done.complete();
                } else {
                    store.skippedSend(key, r, done);
                }
            }), Context.cpu(), List.of(k.storeVar()), List.of(), FnProperty.NO_SKIP, priority, label + ": check it was sent");
        }
    }

    /** A pull of {@code round} (decided at the call): fetch (if the store does), then copy to each out. */
    void pull(Key k, long round, List<DeviceArray> outs, int priority) {
        String label = "kvstore pull " + k.name() + " round " + Rounds.text(round);
        if (store.pullFetches()) {
            engine.pushAsync(hook(k, round, "fetch", store::fetch), Context.cpu(),
                    List.of(), List.of(k.storeVar()), store.storeOpProperty(), priority, label);
        }
        for (DeviceArray out : outs) {
            Memcpy memcpy = out.device().requirePrimitive(Memcpy.class);
            engine.pushSync(rc -> memcpy.hostToDevice(rc.stream(), k.storedBytes(), out.buffer(), out.offsetBytes()),
                    out.context(), List.of(k.storeVar()), List.of(out.var()), scatterProperty(out), priority,
                    label + ": copy to " + out);
        }
    }

    /**
     * The end of this worker's part in {@code period} ({@code call}: endOfData or barrier): one op after
     * every earlier op of {@code keys} (it writes their stored variables) calling
     * {@link AbstractKVStore#endPeriod}. Its failure is left on the keys' variables for their later pulls.
     */
    void endPeriod(List<Key> keys, int period, String call) {
        if (keys.isEmpty()) {
            return; // no key has rounds to end
        }
        List<VarHandle> vars = new ArrayList<>(keys.size());
        for (Key k : keys) {
            vars.add(k.storeVar());
        }
        String step = call + ": end of period " + period;
        engine.pushAsync(named(null, step, done -> store.endPeriod(period, done)), Context.cpu(), List.of(), vars,
                FnProperty.ASYNC, 0, "kvstore " + step + " (rank " + store.rank() + ")");
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

    /** The body of a store op, given the callback that names its failures. */
    @FunctionalInterface
    private interface Body {
        void run(CallbackOnComplete done) throws Exception;
    }

    /** Wraps a hook as an op body whose failures name the key, this rank, the round and the step. */
    private AsyncFn hook(Key k, long round, String step, Hook hook) {
        return named(k.name(), step + " of round " + Rounds.text(round), done -> hook.call(k, round, done));
    }

    /** An op body whose failures are {@link KVStoreException}s naming {@code key} (null: every key), this rank and {@code what}. */
    private AsyncFn named(String key, String what, Body body) {
        return (RunContext rc, CallbackOnComplete done) -> {
            CallbackOnComplete named = new CallbackOnComplete() {
                @Override
                public void complete() {
                    done.complete();
                }

                @Override
                public void fail(Throwable error) {
                    done.fail(failure(key, what, Objects.requireNonNull(error, "error")));
                }
            };
            try {
                body.run(named);
            } catch (Exception | Error e) {
                throw failure(key, what, e);
            }
        };
    }

    private KVStoreException failure(String key, String what, Throwable error) {
        if (error instanceof KVStoreException e) {
            return e;
        }
        return new KVStoreException(key, store.rank(), what + " failed", error);
    }
}
