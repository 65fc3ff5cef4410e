package org.depengine.kvstore.spi;

import java.nio.ByteBuffer;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
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
 * {@code barrier} calls and wraps the store's hooks ({@link AbstractKVStore}) so that their failures name
 * the key, the rank, the round and the step, and their finishing is counted in the store's statistics.
 * Called with the store's arguments already checked; thread-safe (it holds no state of its own).
 *
 * <h2>The ops each call pushes (all with the call's priority)</h2>
 * <pre>
 * init(k, v):      gather   reads v.var        writes k.storeVar   stored  ← v (device → host copy)
 *                  init     (none)             writes k.storeVar   {@link AbstractKVStore#sendInit}(k)
 * push(k, vs):     gather i reads vs[i].var    writes staging i    one per value (device → host copy)
 *                  sum      reads staging 0..n writes k.mergedVar  merged ← Σ staging, in list order
 *                           (one value: its gather writes merged directly, no sum op)
 *                  send     reads k.mergedVar  writes k.storeVar   {@link AbstractKVStore#send}(k, round)
 *                  check    reads k.storeVar, k.mergedVar (NO_SKIP) {@link AbstractKVStore#skippedSend}(k, round) if send was skipped
 *                           (only if {@link AbstractKVStore#reportsSkippedPushes()})
 * endOfData(), barrier():
 *                  end      (none)             writes every k.storeVar {@link AbstractKVStore#endPeriod}(period)  (only if {@link AbstractKVStore#endsPeriods()})
 *                  mark     reads every k.mergedVar, writes every k.storeVar (NO_SKIP): the period's end or start, per key
 * pull(k, outs):   fetch    reads k.mergedVar  writes k.storeVar   {@link AbstractKVStore#fetch}(k, round)   (if {@link AbstractKVStore#pullFetches()})
 *                  scatter  reads k.storeVar   writes out.var      out ← stored (host → device copy), one per out
 * </pre>
 * So on one key, every call's ops run in call order (they all touch {@code storeVar}), except that the
 * gathers and the sum of a push overlap the previous call's send/fetch/scatters; a later push's gather
 * waits for the previous send (and fetch, and check) to have read {@code merged}. Calls on different
 * keys share no variable and run independently. No op ever blocks a thread on the network:
 * {@code send}, {@code fetch} and {@code sendInit} are {@link AsyncFn}s that start the call and complete
 * from its callback.
 */
final class StoreOps {
    private final AbstractKVStore store;
    private final Engine engine;

    StoreOps(AbstractKVStore store) {
        this.store = store;
        this.engine = store.engine();
    }

    /**
     * Builds the key's send, check and fetch op bodies ({@link Key.Fns}), once: they take their rounds
     * when they run. Call before the key is registered (its registration publishes them).
     */
    void prepare(Key k) {
        k.fns = new Key.Fns(
                hook(k, false, Counted.PUSH, "send", (key, r, done) -> {
                    if (key.dataEnded()) {
                        throw new IllegalStateException("rank " + store.rank() + " signalled endOfData() before this "
                                + "push ran (a replayed graph's push): call barrier() before pushing again");
                    }
                    key.lastSent = r;
                    store.send(key, r, done);
                }),
                hook(k, false, Counted.NONE, "report of a skipped push", (key, r, done) -> {
                    if (key.lastSent == r || key.dataEnded()) { // sent, or the period was ended for this rank
                        done.complete();
                    } else {
                        store.stats().pushed(false); // its send op was skipped: it never ran to count itself
                        store.skippedSend(key, r, done);
                    }
                }),
                hook(k, true, Counted.PULL, "fetch", store::fetch));
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
        engine.pushAsync(named(key, () -> "init of round 0", done -> {
            if (resumed != null) {
                k.restore(resumed, resumedRound);
            }
            store.sendInit(k, done);
        }), Context.cpu(), List.of(),
                List.of(k.storeVar()), store.storeOpProperty(), 0, "kvstore init " + key);
    }

    /**
     * A push: gather the values into {@code merged} (summing several), then send. Its round is decided
     * when the send runs ({@link Key#sendRound()}), so the ops are the same whether pushed by the call
     * or replayed from a captured graph.
     */
    void push(Key k, List<DeviceArray> values, int priority) {
        if (values.size() == 1) {
            DeviceArray v = values.get(0);
            Memcpy memcpy = v.device().requirePrimitive(Memcpy.class);
            engine.pushSync(rc -> memcpy.deviceToHost(rc.stream(), v.buffer(), v.offsetBytes(), k.mergedBytes()),
                    v.context(), List.of(v.var()), List.of(k.mergedVar()), FnProperty.COPY_FROM_DEVICE, priority,
                    k.names.copyIn.get(0));
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
                        k.names.copyIn.get(i));
                parts.add(host);
                partVars.add(s.var());
            }
            engine.pushSync(rc -> sum(parts, k.merged()), Context.cpu(), partVars, List.of(k.mergedVar()),
                    FnProperty.CPU_PRIORITIZED, priority, k.names.sum);
        }
        Key.Fns fns = k.fns;
        engine.pushAsync(fns.send(), Context.cpu(), k.opVars.merged(), k.opVars.store(), store.storeOpProperty(), priority,
                k.names.push);
        if (store.reportsSkippedPushes()) {
            // It reads merged too, so that no later push's write moves the count it takes the send's round from.
            engine.pushAsync(fns.check(), Context.cpu(), k.opVars.storeAndMerged(), List.of(), FnProperty.NO_SKIP, priority,
                    k.names.check);
        }
    }

    /**
     * A pull: fetch (if the store does), then copy to each out. The fetch's round is decided when it
     * runs ({@link Key#pullRound()}); it reads {@code merged} so that a later push cannot move it first.
     */
    void pull(Key k, List<DeviceArray> outs, int priority) {
        if (store.pullFetches()) {
            engine.pushAsync(k.fns.fetch(), Context.cpu(), k.opVars.merged(), k.opVars.store(), store.storeOpProperty(),
                    priority, k.names.pull);
        }
        boolean countHere = !store.pullFetches();
        for (int i = 0; i < outs.size(); i++) {
            DeviceArray out = outs.get(i);
            Memcpy memcpy = out.device().requirePrimitive(Memcpy.class);
            boolean last = countHere && i == outs.size() - 1; // a store with no fetch op counts its pull here
            engine.pushSync(rc -> {
                memcpy.hostToDevice(rc.stream(), k.storedBytes(), out.buffer(), out.offsetBytes());
                if (last) {
                    store.stats().pulled(true);
                }
            },
                    out.context(), k.opVars.store(), List.of(out.var()), scatterProperty(out), priority,
                    k.names.copyOut.get(i));
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
        String step = call + ": end of period " + period;
        engine.pushAsync(named(null, () -> step, done -> store.endPeriod(period, done)), Context.cpu(), List.of(),
                storeVars(keys), FnProperty.ASYNC, 0, "kvstore " + step + " (rank " + store.rank() + ")");
    }

    /**
     * Where the keys' ops learn of {@code barrier()} and {@code endOfData()} in op order: a
     * {@link FnProperty#NO_SKIP} op (it runs, and leaves their failures in place) after every earlier op
     * of {@code keys} and before every later one, which starts period {@code period} on each key
     * ({@code endData} false) or marks the current one ended for this worker ({@code endData} true).
     */
    void markPeriod(List<Key> keys, int period, boolean endData) {
        if (keys.isEmpty()) {
            return;
        }
        List<VarHandle> merged = new ArrayList<>(keys.size());
        for (Key k : keys) {
            merged.add(k.mergedVar());
        }
        engine.pushSync(rc -> {
            for (Key k : keys) {
                if (endData) {
                    k.endData();
                } else {
                    k.startPeriod(period);
                }
            }
        }, Context.cpu(), merged, storeVars(keys), FnProperty.NO_SKIP, 0,
                "kvstore " + (endData ? "endOfData in period " : "barrier: start period ") + period);
    }

    private static List<VarHandle> storeVars(List<Key> keys) {
        List<VarHandle> vars = new ArrayList<>(keys.size());
        for (Key k : keys) {
            vars.add(k.storeVar());
        }
        return vars;
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

    /** Which count of the store's statistics an op adds to when it finishes. */
    private enum Counted { PUSH, PULL, NONE }

    /**
     * Wraps a hook as an op body that takes its round when it runs (a pull's round if {@code pull}, else
     * the push's), counts its finishing in the store's statistics, and whose failures name the key, this
     * rank, the round and the step.
     */
    private AsyncFn hook(Key k, boolean pull, Counted counted, String step, Hook hook) {
        String key = k.name();
        StoreStats stats = store.stats();
        return (RunContext rc, CallbackOnComplete done) -> {
            long round = pull ? k.pullRound() : k.sendRound();
            CallbackOnComplete counting = counted == Counted.NONE ? done : new CallbackOnComplete() {
                @Override
                public void complete() {
                    finished(true);
                    done.complete();
                }

                @Override
                public void fail(Throwable error) {
                    finished(false);
                    done.fail(error);
                }

                private void finished(boolean ok) {
                    if (counted == Counted.PUSH) {
                        stats.pushed(ok);
                    } else {
                        stats.pendingRead(-1);
                        stats.pulled(ok);
                    }
                }
            };
            if (counted == Counted.PULL) {
                stats.pendingRead(1);
            }
            run(key, () -> step + " of round " + Rounds.text(round), counting, d -> hook.call(k, round, d));
        };
    }

    /** An op body whose failures are {@link KVStoreException}s naming {@code key} (null: every key), this rank and {@code what}. */
    private AsyncFn named(String key, Supplier<String> what, Body body) {
        return (RunContext rc, CallbackOnComplete done) -> run(key, what, done, body);
    }

    private void run(String key, Supplier<String> what, CallbackOnComplete done, Body body) {
        CallbackOnComplete named = new CallbackOnComplete() {
            @Override
            public void complete() {
                done.complete();
            }

            @Override
            public void fail(Throwable error) {
                done.fail(failure(key, what.get(), Objects.requireNonNull(error, "error")));
            }
        };
        try {
            body.run(named);
        } catch (Exception | Error e) {
            throw failure(key, what.get(), e);
        }
    }

    private KVStoreException failure(String key, String what, Throwable error) {
        if (error instanceof KVStoreException e) {
            return e;
        }
        return new KVStoreException(key, store.rank(), what + " failed", error);
    }
}
