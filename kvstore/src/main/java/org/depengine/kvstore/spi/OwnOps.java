package org.depengine.kvstore.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.EngineException;
import org.depengine.api.FnProperty;
import org.depengine.api.VarHandle;
import org.depengine.kvstore.KVStoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A store's waits for its own ops, made through ops on the keys' variables (never by polling): at close,
 * for every op it pushed; for a checkpoint, for the keys' ops (failing if one failed) and then a body run
 * after them. Thread-safe; the waits block the calling thread (never an engine thread).
 */
final class OwnOps {
    private static final Logger LOG = LoggerFactory.getLogger(OwnOps.class);

    private final AbstractKVStore store;
    private final Engine engine;
    private final String type;
    private final KeyRegistry keys;

    OwnOps(AbstractKVStore store, String type, KeyRegistry keys) {
        this.store = store;
        this.engine = store.engine();
        this.type = type;
        this.keys = keys;
    }

    /** Every key's value, updater state and update count as held here, read after every op pushed on them. */
    List<org.depengine.kvstore.Checkpoint.Entry> readHere(List<Key> ks) throws InterruptedException {
        List<org.depengine.kvstore.Checkpoint.Entry> out = new ArrayList<>();
        afterOwnOps("checkpoint: read the keys", ks, () -> {
            for (Key k : ks) {
                float[] value = new float[k.length()];
                k.stored().get(value);
                float[] state = k.stateCopy();
                out.add(new org.depengine.kvstore.Checkpoint.Entry(k.name(), value, state.length / k.length(), state,
                        k.steps()));
            }
        });
        return out;
    }

    /**
     * Writes the checkpoint of {@code ks} as of the end of {@code period} to {@code path}: after their ops
     * (failing if one failed), read by the store's snapshot, then written whole.
     *
     * @throws KVStoreException naming the path and the cause
     */
    void checkpoint(java.nio.file.Path path, int period, List<Key> ks, String updater) {
        int rank = store.rank();
        List<org.depengine.kvstore.Checkpoint.Entry> entries;
        try {
            awaitKeysFor(ks, "checkpoint " + path);
            entries = store.snapshot(ks, period);
        } catch (KVStoreException e) {
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KVStoreException(null, rank, "interrupted while writing the checkpoint " + path, e);
        } catch (Exception e) {
            throw new KVStoreException(null, rank, "checkpoint " + path + " failed", e);
        }
        try {
            new org.depengine.kvstore.Checkpoint(period, updater, entries).write(path);
        } catch (java.io.UncheckedIOException e) {
            throw new KVStoreException(null, rank, e.getMessage(), e);
        }
        LOG.info("rank 0 wrote the {} store's checkpoint of period {} ({} keys) to {}", type, period, entries.size(), path);
    }

    /**
     * Waits for every op this store pushed: a {@link FnProperty#NO_SKIP} op reading every variable of
     * the store runs after all of them (a read leaves their failures in place for their own waiters),
     * then the variables are deleted.
     */
    void awaitOwnOps() {
        if (engine.isClosed() || keys.isEmpty()) {
            return;
        }
        List<VarHandle> vars = keys.vars();
        try {
            afterOwnOps("kvstore close: wait for the store's ops", null, () -> { });
            for (VarHandle v : vars) {
                engine.deleteVariable(rc -> { }, Context.cpu(), v);
            }
        } catch (IllegalStateException e) {
            LOG.debug("closing the {} store: engine closed meanwhile", type, e); // its close waited for our ops
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            LOG.warn("closing the {} store (rank {}) was interrupted; its ops may still run", type, store.rank());
        }
    }

    /**
     * Waits for every op on {@code ks} through an op that reads their variables and is skipped if one
     * carries a failure (a failed push): {@code what} then fails with that cause, instead of going on
     * with a value that missed the failed push. The failure is reported here (the engine reports each
     * failure once).
     *
     * @throws KVStoreException naming {@code what} and the cause
     */
    void awaitKeysFor(List<Key> ks, String what) {
        List<VarHandle> vars = new ArrayList<>();
        ks.forEach(k -> vars.addAll(k.vars()));
        VarHandle fence = engine.newVariable("kvstore " + what + ": the keys' ops are done");
        try {
            engine.pushSync(rc -> { }, Context.cpu(), vars, List.of(fence), FnProperty.NORMAL, 0,
                    "kvstore " + what + ": wait for the keys' ops");
            engine.waitForVar(fence);
        } catch (EngineException e) {
            throw new KVStoreException(null, store.rank(), what + ": an op of the store failed, so a key's value "
                    + "misses a push; nothing was written", e);
        } finally {
            engine.deleteVariable(rc -> { }, Context.cpu(), fence);
        }
    }

    /**
     * Runs {@code body} in a {@link FnProperty#NO_SKIP} op reading every variable of {@code keys} (null:
     * every key's, staging included), so after every op pushed on them before, and waits for it
     * (logging every {@code timeoutMs} that it still waits).
     */
    void afterOwnOps(String what, List<Key> of, Runnable body) throws InterruptedException {
        List<VarHandle> vars = new ArrayList<>();
        if (of == null) {
            vars.addAll(keys.vars());
        } else {
            of.forEach(k -> vars.addAll(k.vars()));
        }
        if (vars.isEmpty()) {
            body.run();
            return;
        }
        CountDownLatch done = new CountDownLatch(1);
        RuntimeException[] failed = new RuntimeException[1];
        engine.pushSync(rc -> {
            try {
                body.run();
            } catch (RuntimeException e) {
                failed[0] = e;
            } finally {
                done.countDown();
            }
        }, Context.cpu(), vars, List.of(), FnProperty.NO_SKIP, 0, what);
        while (!done.await(store.settings().timeoutMs(), TimeUnit.MILLISECONDS)) {
            LOG.warn("{} store (rank {}): {}: its ops are still running after {} ms; waiting on", type, store.rank(), what,
                    store.settings().timeoutMs());
        }
        if (failed[0] != null) {
            throw failed[0];
        }
    }
}
