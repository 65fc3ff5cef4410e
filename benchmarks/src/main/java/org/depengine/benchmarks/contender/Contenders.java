package org.depengine.benchmarks.contender;

import java.util.List;
import java.util.Objects;
import org.depengine.api.Context;
import org.depengine.api.device.Stream;
import org.depengine.benchmarks.workload.Workload;

/**
 * Makes contenders by name: the engines {@code naive}, {@code pooled}, {@code perdevice} (any name
 * {@link org.depengine.api.Engine#create} knows; {@code +builder} pushes through the op builder,
 * {@code +bulkN} pushes each run inside {@code engine.bulk(N)}, {@code +replay} captures the list once
 * and replays it each run), and the baselines {@code serial}, {@code cf},
 * {@code fjp} and {@code dexecutor}. Baseline pools get one thread per core, as the engines' default
 * worker groups do.
 */
public final class Contenders {
    /** The baselines' names. */
    public static final List<String> BASELINES = List.of("serial", "cf", "fjp", "dexecutor");

    private Contenders() {
    }

    /**
     * A contender for {@code workload}.
     *
     * @param name an engine name or a baseline name
     * @param ctx the context engines push to (baselines run CPU bodies directly)
     * @param profiling whether an engine gets a profiler (ignored by baselines)
     * @throws IllegalStateException if no engine of that name is found
     */
    public static Contender create(String name, Workload workload, Context ctx, boolean profiling) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(workload, "workload");
        int threads = Runtime.getRuntime().availableProcessors();
        switch (name) {
            case "serial":
                return new SerialContender("serial", workload, null);
            case "cf":
                return new CompletableFutureContender(workload, threads);
            case "fjp":
                return new ForkJoinContender(workload, threads);
            case "dexecutor":
                return new DexecutorContender(workload, threads);
            default:
                if (name.endsWith(EngineContender.BUILDER_SUFFIX)) { // the same engine, pushed through engine.op(...)
                    String engine = name.substring(0, name.length() - EngineContender.BUILDER_SUFFIX.length());
                    return new EngineContender(engine, workload, Objects.requireNonNull(ctx, "ctx"), profiling, true, 0, false);
                }
                if (name.endsWith(EngineContender.REPLAY_SUFFIX)) { // the same engine, the list captured once and replayed
                    String engine = name.substring(0, name.length() - EngineContender.REPLAY_SUFFIX.length());
                    return new EngineContender(engine, workload, Objects.requireNonNull(ctx, "ctx"), profiling, false, 0, true);
                }
                int bulkAt = name.lastIndexOf(EngineContender.BULK_SUFFIX);
                if (bulkAt > 0) { // the same engine, pushing each run inside engine.bulk(N)
                    String size = name.substring(bulkAt + EngineContender.BULK_SUFFIX.length());
                    if (!size.matches("[1-9]\\d{0,5}")) {
                        throw new IllegalArgumentException("contender '" + name + "': the bulk size after '"
                                + EngineContender.BULK_SUFFIX + "' must be a whole number from 1, e.g. perdevice+bulk16");
                    }
                    return new EngineContender(name.substring(0, bulkAt), workload, Objects.requireNonNull(ctx, "ctx"),
                            profiling, false, Integer.parseInt(size), false);
                }
                return new EngineContender(name, workload, Objects.requireNonNull(ctx, "ctx"), profiling, false, 0, false);
        }
    }

    /**
     * The serial baseline of a device workload: every body enqueues on {@code stream}, and each run
     * ends with {@link Stream#synchronize()}. The stream is closed with the contender.
     */
    public static Contender serial(String name, Workload workload, Stream stream) {
        return new SerialContender(name, workload, Objects.requireNonNull(stream, "stream"));
    }

    /** Whether {@code name} is a baseline rather than an engine. */
    public static boolean isBaseline(String name) {
        return BASELINES.contains(name);
    }
}
