package org.depengine.kvstore.hazelcast.membership;

import com.hazelcast.map.IMap;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.depengine.api.settings.Setting;
import org.depengine.kvstore.KVStoreSettings;
import org.depengine.kvstore.hazelcast.HazelcastSettings;
import org.depengine.kvstore.spi.KVStoreSettingsCatalog;

/**
 * An elastic job's settings ({@code docs/elastic-design.md}, section 5), read through
 * {@link HazelcastSettings}' declarations and checked together: {@code 1 ≤ minWorkers ≤ numWorkers ≤
 * maxWorkers}. A job that is not elastic has {@code minWorkers = maxWorkers = numWorkers}.
 *
 * <p>No input is silently ignored: {@code minWorkers}, {@code maxWorkers}, {@code minWorkersWaitMs} and
 * {@code recoveryTimeoutMs} given without {@code elastic=true} are refused, naming {@code elastic}; and
 * {@code join=true} is refused when a store opens where joiners are not built yet ({@link
 * #refuseElasticAtOpen}: {@code dist_async}, {@code updateOn=server}, whose elastic jobs go on after a loss but
 * admit no worker). Tests of the membership build this record with {@link #from} and hand it to
 * {@link ElasticMembership} directly.
 *
 * @param elastic whether the job goes on without a lost worker
 * @param minWorkers the fewest workers the job runs with; below, it pauses
 * @param maxWorkers the most workers the job admits
 * @param minWorkersWait how long a paused job waits for joiners before it fails
 * @param recoveryTimeout the longest the survivors take to bring their open rounds to a new view (step 4)
 */
public record ElasticSettings(boolean elastic, int minWorkers, int maxWorkers, Duration minWorkersWait,
                              Duration recoveryTimeout) {
    /** The settings of a job that is not elastic, of {@code numWorkers} workers. */
    public static ElasticSettings notElastic(int numWorkers) {
        return new ElasticSettings(false, numWorkers, numWorkers, HazelcastSettings.MIN_WORKERS_WAIT.defaultValue(),
                HazelcastSettings.RECOVERY_TIMEOUT.defaultValue());
    }

    /**
     * The elastic settings of {@code s}, checked together.
     *
     * @throws IllegalArgumentException in the settings' one form: a value the parser refuses; an
     *     elastic-only setting given without {@code elastic=true} (naming both); {@code minWorkers} above
     *     {@code numWorkers}, or {@code maxWorkers} below it (naming both and where each came from)
     */
    public static ElasticSettings from(KVStoreSettings s) {
        return from(s, joins(s) && s.get(KVStoreSettingsCatalog.NUM_WORKERS.key()).isEmpty() ? -1 : s.numWorkers());
    }

    /** Whether {@code s} opens a joiner of a running elastic job ({@code join=true}). */
    public static boolean joins(KVStoreSettings s) {
        return s.get(HazelcastSettings.JOIN);
    }

    /**
     * The elastic settings of {@code s} for a job of {@code workers} workers at start (a joiner learns it from the
     * job), checked together; -1: not known yet, and {@code minWorkers} and {@code maxWorkers} are not checked
     * against it.
     *
     * @throws IllegalArgumentException as {@link #from(KVStoreSettings)}; also a joiner given a rank or a
     *     checkpoint to resume from
     */
    public static ElasticSettings from(KVStoreSettings s, int workers) {
        boolean elastic = s.get(HazelcastSettings.ELASTIC);
        if (!elastic) {
            List<String> given = new ArrayList<>();
            for (Setting<?> only : List.of(HazelcastSettings.JOIN, HazelcastSettings.MIN_WORKERS, HazelcastSettings.MAX_WORKERS,
                    HazelcastSettings.MIN_WORKERS_WAIT, HazelcastSettings.RECOVERY_TIMEOUT)) {
                s.find(only); // a value the parser refuses is named as such first
                s.get(only.key()).ifPresent(v -> given.add(s.describe(only) + "='" + v + "'"));
            }
            if (!given.isEmpty()) {
                throw new IllegalArgumentException(String.join(", ", given) + (given.size() == 1 ? " is" : " are")
                        + " for elastic jobs only, and " + where(s, HazelcastSettings.ELASTIC) + "=false: set "
                        + HazelcastSettings.ELASTIC.key() + "=true, or remove " + (given.size() == 1 ? "it" : "them")
                        + " (a job that is not elastic runs with exactly numWorkers workers)");
            }
            return notElastic(workers);
        }
        if (joins(s)) {
            for (Setting<?> own : List.of(KVStoreSettingsCatalog.RANK, KVStoreSettingsCatalog.RESUME)) {
                s.get(own.key()).ifPresent(v -> {
                    throw new IllegalArgumentException(s.describe(own) + "='" + v + "' is refused with "
                            + s.describe(HazelcastSettings.JOIN)
                            + "=true: a joiner takes its rank from the view that admits it and its keys' state from the job's workers; remove "
                            + own.key());
                });
            }
        }
        int min = s.find(HazelcastSettings.MIN_WORKERS).orElse(Math.max(1, workers));
        int max = s.find(HazelcastSettings.MAX_WORKERS).orElse(Math.max(min, workers));
        if (workers < 0) {
            if (min > max) {
                throw new IllegalArgumentException(where(s, HazelcastSettings.MIN_WORKERS) + "=" + min + " must be at "
                        + "most " + where(s, HazelcastSettings.MAX_WORKERS) + "=" + max);
            }
        } else if (min > workers) {
            throw new IllegalArgumentException(where(s, HazelcastSettings.MIN_WORKERS) + "=" + min + " must be at most "
                    + where(s, KVStoreSettingsCatalog.NUM_WORKERS) + "=" + workers + ": the job starts with numWorkers "
                    + "workers, and a view below minWorkers pauses it");
        }
        if (workers >= 0 && max < workers) {
            throw new IllegalArgumentException(where(s, HazelcastSettings.MAX_WORKERS) + "=" + max + " must be at least "
                    + where(s, KVStoreSettingsCatalog.NUM_WORKERS) + "=" + workers + ": the job waits for numWorkers "
                    + "workers at start, and admits joiners up to maxWorkers");
        }
        return new ElasticSettings(true, min, max, s.get(HazelcastSettings.MIN_WORKERS_WAIT),
                s.get(HazelcastSettings.RECOVERY_TIMEOUT));
    }

    /**
     * Refuses what of an elastic job is not built yet for the store's mode: every mode goes on after a lost
     * worker, but only {@code dist_sync} with {@code updateOn=worker} (the default) admits joiners; a joiner
     * ({@code join=true}) of a {@code dist_async} or {@code updateOn=server} job is refused (issue 40).
     *
     * @throws IllegalArgumentException if a setting is invalid ({@link #from}), or {@code join=true} with
     *     {@code dist_async} or {@code updateOn=server}
     */
    public static void refuseElasticAtOpen(KVStoreSettings s, boolean async, HazelcastSettings.UpdateOn updateOn) {
        if (from(s).elastic() && joins(s) && (async || updateOn != HazelcastSettings.UpdateOn.WORKER)) {
            throw new IllegalArgumentException(s.describe(HazelcastSettings.JOIN) + "='"
                    + s.get(HazelcastSettings.JOIN.key()).orElse("true") + "' needs dist_sync with "
                    + HazelcastSettings.UPDATE_ON.key() + "=worker (the default): admitting a worker into a running "
                    + (async ? "dist_async" : "updateOn=server") + " job is not built yet (issue 40); its elastic jobs "
                    + "go on without a lost worker but admit none: leave join unset and start a new job from a checkpoint "
                    + "(depengine.kvstore.resume) with more workers, or use dist_sync with updateOn=worker");
        }
    }

    /**
     * The job's {@code minWorkers} and {@code maxWorkers}, agreed through the job's {@code shared} map: the first
     * worker to open the job publishes its own, every other worker must have the same (every worker pauses at
     * the same views, and admits as many), and a joiner takes the job's.
     *
     * @param given whether this worker was given minWorkers or maxWorkers (a joiner's are then checked too)
     * @return these settings with the job's limits
     * @throws IllegalArgumentException if this worker's limits are not the job's
     */
    public ElasticSettings agreed(IMap<String, String> shared, String jobId, boolean joining, boolean given) {
        String mine = minWorkers + "," + maxWorkers;
        String jobs = joining ? shared.get(LIMITS) : shared.putIfAbsent(LIMITS, mine);
        if (jobs == null || jobs.equals(mine)) {
            return this;
        }
        if (!joining || given) {
            throw new IllegalArgumentException("this worker opened job '" + jobId + "' with minWorkers=" + minWorkers
                    + " and maxWorkers=" + maxWorkers + ", but the job runs with minWorkers=" + jobs.replace(",",
                    " and maxWorkers=") + ": give every worker of an elastic job the same (a joiner may leave them unset)");
        }
        String[] v = jobs.split(",");
        return new ElasticSettings(elastic, Integer.parseInt(v[0]), Integer.parseInt(v[1]), minWorkersWait, recoveryTimeout);
    }

    /** Where a job's agreed limits are in its {@code shared} map: {@code "min,max"}. */
    private static final String LIMITS = "elasticLimits";

    /** A setting as the errors name it: where its value came from, or {@code KEY (default)}. */
    private static String where(KVStoreSettings s, Setting<?> setting) {
        return s.get(setting.key()).isEmpty() ? setting.key() + " (default)" : s.describe(setting);
    }
}
