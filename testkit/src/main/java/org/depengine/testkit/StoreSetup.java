package org.depengine.testkit;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.kvstore.KVStore;

/**
 * A KVStore implementation under {@link KVStoreConformance}: how to open its stores, what it can do (its
 * workers, whether a pull sees the whole round, the size it splits keys at), the engines it is crossed with
 * and their settings, and the invariants its stores must leave true after each test; and, once placed in
 * the cross product ({@link #in}), the engine and the workers of that point. Immutable; the {@code with…}
 * methods return copies.
 */
public final class StoreSetup {
    /** Opens one store per engine, all of one job: worker {@code i} has rank {@code i} and pushes to {@code engines.get(i)}. */
    @FunctionalInterface
    public interface Opener {
        /**
         * @param engines one per worker, at least one, at most {@link #maxWorkers()}
         * @param settings settings by short name every store is opened with on top of the store's own
         *     (e.g. {@code resume}, {@code splitFloats}); empty for most cases
         * @return the stores, in rank order
         */
        List<KVStore> open(List<Engine> engines, Map<String, String> settings);
    }

    /** What a store leaves behind after a test that closed all it opened: checked after each test. */
    @FunctionalInterface
    public interface Invariants {
        /**
         * Fails (an {@link AssertionError} saying what is left) if the store's implementation holds anything
         * of the closed stores: a listener, a map, a connection.
         */
        void checkNothingLeft();
    }

    private final String type;
    private final Opener opener;
    private final int maxWorkers;
    private final boolean synchronousRounds;
    private final int splitFloats;
    private final List<Context> devices;
    private final Map<String, Map<String, String>> engines;
    private final Invariants invariants;
    private final String engine;
    private final int workers;

    private StoreSetup(String type, Opener opener, int maxWorkers, boolean synchronousRounds, int splitFloats,
                       List<Context> devices, Map<String, Map<String, String>> engines, Invariants invariants, String engine,
                       int workers) {
        this.type = type;
        this.opener = opener;
        this.maxWorkers = maxWorkers;
        this.synchronousRounds = synchronousRounds;
        this.splitFloats = splitFloats;
        this.devices = devices;
        this.engines = engines;
        this.invariants = invariants;
        this.engine = engine;
        this.workers = workers;
    }

    /**
     * A store of {@code type} opened by {@code opener}: one worker, synchronous rounds, keys kept whole,
     * values on {@code cpu:0} and {@code cpu:1}, crossed with the naive, pooled and perdevice engines
     * (perdevice with one CPU priority worker, so that priorities order its ready ops).
     */
    public static StoreSetup of(String type, Opener opener) {
        Map<String, Map<String, String>> engines = new LinkedHashMap<>();
        engines.put("naive", Map.of());
        engines.put("pooled", Map.of("depengine.pooled.workers", "2"));
        engines.put("perdevice", Map.of("depengine.cpu.priorityWorkers", "1"));
        return new StoreSetup(type, opener, 1, true, 0, List.of(Context.cpu(0), Context.cpu(1)), engines, () -> { },
                "perdevice", 1);
    }

    /** This store with up to {@code n} workers a test. */
    public StoreSetup withMaxWorkers(int n) {
        return new StoreSetup(type, opener, n, synchronousRounds, splitFloats, devices, engines, invariants, engine, workers);
    }

    /** This store, whose pulls see this worker's pushes and not the whole round ({@code dist_async}). */
    public StoreSetup withAsyncRounds() {
        return new StoreSetup(type, opener, maxWorkers, false, splitFloats, devices, engines, invariants, engine, workers);
    }

    /** This store, whose no-wait cases open their stores with setting {@code splitFloats=n} (so that some keys are split). */
    public StoreSetup withSplitFloats(int n) {
        return new StoreSetup(type, opener, maxWorkers, synchronousRounds, n, devices, engines, invariants, engine, workers);
    }

    /** This store, with values and outs spread over {@code devices}. */
    public StoreSetup withDevices(List<Context> devices) {
        return new StoreSetup(type, opener, maxWorkers, synchronousRounds, splitFloats, List.copyOf(devices), engines,
                invariants, engine, workers);
    }

    /** This store crossed with {@code names} only (of naive, pooled, perdevice), in that order. */
    public StoreSetup withEngines(String... names) {
        Map<String, Map<String, String>> kept = new LinkedHashMap<>();
        for (String n : names) {
            kept.put(n, Objects.requireNonNull(engines.get(n), n));
        }
        return new StoreSetup(type, opener, maxWorkers, synchronousRounds, splitFloats, devices, kept, invariants, engine,
                workers);
    }

    /** This store, checking {@code invariants} after each test. */
    public StoreSetup withInvariants(Invariants invariants) {
        return new StoreSetup(type, opener, maxWorkers, synchronousRounds, splitFloats, devices, engines, invariants, engine,
                workers);
    }

    /** This store at one point of the cross product: on {@code engine}, with {@code workers} workers per multi-worker case. */
    public StoreSetup in(String engine, int workers) {
        return new StoreSetup(type, opener, maxWorkers, synchronousRounds, splitFloats, devices, engines, invariants, engine,
                workers);
    }

    /** The store's type, e.g. {@code dist_sync}. */
    public String type() {
        return type;
    }

    Opener opener() {
        return opener;
    }

    /** The most workers a test may open. */
    public int maxWorkers() {
        return maxWorkers;
    }

    /** Whether a pull after every worker's push sees the whole round. */
    public boolean synchronousRounds() {
        return synchronousRounds;
    }

    /** The split size of the no-wait cases, 0 for none. */
    public int splitFloats() {
        return splitFloats;
    }

    /** The devices values and outs are spread over. */
    public List<Context> devices() {
        return devices;
    }

    /** The engines this store is crossed with. */
    public List<String> engines() {
        return List.copyOf(engines.keySet());
    }

    Invariants invariants() {
        return invariants;
    }

    /** This point's engine. */
    public String engine() {
        return engine;
    }

    /** This point's workers: how many a multi-worker case opens. */
    public int workers() {
        return workers;
    }

    /** Whether this point's engine runs ready priority ops by priority on one worker (perdevice with one CPU priority worker). */
    public boolean ordersByPriority() {
        return "perdevice".equals(engine) && "1".equals(engines.getOrDefault(engine, Map.of()).get("depengine.cpu.priorityWorkers"));
    }

    /** The engine of this point, for {@link EngineTestBase}. */
    EngineSetup engineSetup() {
        EngineSetup e = EngineSetup.of(engine).withSettings(new HashMap<>(engines.getOrDefault(engine, Map.of())))
                .withContexts(devices);
        return "naive".equals(engine) ? e.withoutOwnThreads() : e;
    }

    /** This point in words, for failure messages. */
    public String label() {
        return type + " store on engine " + engine + ", " + workers + (workers == 1 ? " worker" : " workers");
    }

    @Override
    public String toString() {
        return label();
    }
}
