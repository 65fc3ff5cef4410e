package org.depengine.examples;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.depengine.kvstore.KVStoreSettings;
import picocli.CommandLine.Option;

/**
 * An elastic {@code dist_sync} job's options of {@link MultiDeviceTraining} (a picocli mixin): the job goes on
 * when a worker dies ({@code depengine.kvstore.elastic=true}), with {@code --min-workers} and
 * {@code --max-workers} passed on as {@code minWorkers} and {@code maxWorkers}; and, for the loopback form, a
 * demonstration: rank 0 kills workers ({@code --kill RANK@EPOCH}) or starts one that joins
 * ({@code --join-at EPOCH}) when its training reaches an epoch. {@code --join HOST:PORT} is the joiner's own
 * form (what {@code --join-at} starts, or a worker started by hand on another machine). Not thread-safe;
 * picocli fills it once.
 *
 * <p>Rank 0 of the loopback form is this process: it starts the others, prints, and writes the trace, so it
 * cannot be killed here. In the per-machine form any worker may die; the epoch lines are then printed by the
 * rank 0 of each epoch's view (see {@link Trainer}).
 */
final class ElasticOptions {
    @Option(names = "--elastic",
            description = "with --kvstore dist_sync: the job goes on when a worker dies (depengine.kvstore.elastic=true); "
                    + "each epoch's batches are split over the workers of the view agreed at its start, and each "
                    + "membership change is printed with the first round of each key summed over its view")
    boolean elastic;

    @Option(names = "--min-workers", paramLabel = "N",
            description = "with --elastic: the fewest workers the job goes on with (minWorkers; default 1); below, it "
                    + "waits minWorkersWaitMs for joiners, then fails")
    private Integer minWorkers;

    @Option(names = "--max-workers", paramLabel = "N",
            description = "with --elastic: the most workers the job admits (maxWorkers; default --workers, one more "
                    + "with --join-at)")
    private Integer maxWorkers;

    @Option(names = "--kill", paramLabel = "RANK@EPOCH",
            description = "with --elastic --workers N (loopback): rank 0 kills worker RANK's process (1..N-1, "
                    + "destroyForcibly, as a crash) when its training starts epoch EPOCH, once the epoch's split is "
                    + "agreed: the rest of that epoch is summed without the worker's share; may be given for several ranks")
    private List<String> kills = new ArrayList<>();

    @Option(names = "--join-at", paramLabel = "EPOCH",
            description = "with --elastic --workers N (loopback): rank 0 starts one more worker when its training "
                    + "reaches epoch EPOCH; it joins the running job at an epoch's end (needs the store's joiners)")
    private Integer joinAt;

    @Option(names = "--join", paramLabel = "HOST:PORT",
            description = "with --elastic, --members (the job's workers) and --job: this process joins the running job "
                    + "as a new worker listening at HOST:PORT, with no --rank (depengine.kvstore.join=true)")
    String join;

    /** The kills by epoch: the ranks rank 0 kills when its training reaches each; filled by {@link #check}. */
    private final Map<Integer, List<Integer>> killsAt = new TreeMap<>();

    /**
     * Checks the options that need nothing of the job: each needs {@code --elastic}, which needs
     * {@code dist_sync}; a joiner's form takes none of the others.
     *
     * @throws IllegalArgumentException naming the option that is wrong and what to give instead
     */
    void checkAlone(String kvstoreType) {
        if (!elastic) {
            needsElastic("--min-workers", minWorkers != null);
            needsElastic("--max-workers", maxWorkers != null);
            needsElastic("--kill", !kills.isEmpty());
            needsElastic("--join-at", joinAt != null);
            needsElastic("--join", join != null);
            return;
        }
        if (!kvstoreType.equals("dist_sync")) {
            throw new IllegalArgumentException("--elastic needs --kvstore dist_sync (elastic jobs are built for "
                    + "dist_sync with updateOn=worker), not " + kvstoreType);
        }
        if (join != null && (!kills.isEmpty() || joinAt != null || minWorkers != null || maxWorkers != null)) {
            throw new IllegalArgumentException("--join is a joiner's own form: --min-workers and --max-workers are the "
                    + "job's (given to its first workers), --kill and --join-at the launching process's");
        }
    }

    private static void needsElastic(String option, boolean given) {
        if (given) {
            throw new IllegalArgumentException(option + " needs --elastic (and --kvstore dist_sync)");
        }
    }

    /**
     * Checks the options against the job's: {@code workers} at start, {@code epochs}, whether this process
     * starts the others on loopback, whether it checkpoints or resumes. Call after {@link #checkAlone}.
     *
     * @throws IllegalArgumentException naming the option that is wrong and what to give instead
     */
    void check(int workers, int epochs, boolean loopback, boolean checkpoints) {
        if (!elastic) {
            return;
        }
        if (checkpoints) {
            throw new IllegalArgumentException("--elastic does not go with --checkpoint-every or --resume in this example: "
                    + "an elastic job goes on without its lost workers instead of restarting");
        }
        if (join != null) {
            return;
        }
        int min = minWorkers != null ? minWorkers : 1;
        Cli.inRange("--min-workers", min, 1, workers);
        if ((!kills.isEmpty() || joinAt != null) && !loopback) {
            throw new IllegalArgumentException((kills.isEmpty() ? "--join-at" : "--kill") + " needs the loopback form "
                    + "(--workers N without --members): the process that starts the workers kills or adds them; on "
                    + "machines, stop a worker yourself, or start one with --join HOST:PORT");
        }
        int joiners = joinAt != null ? 1 : 0;
        if (joinAt != null) {
            Cli.inRange("--join-at", joinAt, 1, epochs - 1); // admitted at an epoch's end: an epoch must follow
        }
        int max = maxWorkers != null ? maxWorkers : workers + joiners;
        if (max < workers + joiners) {
            throw new IllegalArgumentException("--max-workers " + max + " is below the " + workers + " workers"
                    + (joiners > 0 ? " and the joiner of --join-at" : "") + ": give at least " + (workers + joiners));
        }
        maxWorkers = Cli.inRange("--max-workers", max, workers, 64);
        minWorkers = min;
        parseKills(workers, epochs);
    }

    private void parseKills(int workers, int epochs) {
        List<Integer> ranks = new ArrayList<>();
        for (String k : kills) {
            int at = k.indexOf('@');
            int rank;
            int epoch;
            try {
                rank = Integer.parseInt(k.substring(0, Math.max(at, 0)));
                epoch = Integer.parseInt(k.substring(at + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--kill '" + k + "' is not RANK@EPOCH, e.g. 2@10", e);
            }
            if (rank == 0) {
                throw new IllegalArgumentException("--kill 0@" + epoch + ": rank 0 is this process, which starts the "
                        + "others, prints and writes the trace; kill one of ranks 1.." + (workers - 1));
            }
            if (rank < 0 || rank >= workers) {
                throw new IllegalArgumentException("--kill " + k + ": rank " + rank + " is out of range: give one of "
                        + "ranks 1.." + (workers - 1) + (workers == 1 ? " (there is no other worker)" : ""));
            }
            Cli.inRange("--kill " + k + ": epoch", epoch, 1, epochs);
            if (ranks.contains(rank)) {
                throw new IllegalArgumentException("--kill names rank " + rank + " twice: a worker dies once");
            }
            ranks.add(rank);
            killsAt.computeIfAbsent(epoch, e -> new ArrayList<>()).add(rank);
        }
        int alive = workers;
        for (Map.Entry<Integer, List<Integer>> e : killsAt.entrySet()) {
            int after = alive - e.getValue().size();
            if (after < minWorkers) {
                throw new IllegalArgumentException("--kill leaves " + after + " workers at epoch " + e.getKey()
                        + ", fewer than --min-workers " + minWorkers + ": the job would pause, then fail");
            }
            if (2 * after < alive) { // an embedded job's side goes on with a majority, or half with rank 0
                throw new IllegalArgumentException("--kill takes " + e.getValue().size() + " of " + alive
                        + " workers at epoch " + e.getKey() + ": the survivors would be a minority of the view, "
                        + "cut off from the job; kill at most half at once");
            }
            alive = after;
        }
    }

    /** The store settings of an elastic worker, on top of {@code given}; {@code given} itself if not elastic. */
    KVStoreSettings settings(KVStoreSettings given) {
        if (!elastic) {
            return given;
        }
        KVStoreSettings.Builder b = given.toBuilder().set("elastic", "true");
        if (join != null) {
            b.set("join", "true");
        } else {
            b.set("minWorkers", Integer.toString(minWorkers)).set("maxWorkers", Integer.toString(maxWorkers));
        }
        return b.build();
    }

    /** The options that make a worker started on loopback elastic as this one (a joiner's are just {@code --elastic}). */
    List<String> workerArgs() {
        return elastic ? List.of("--elastic", "--min-workers", Integer.toString(minWorkers), "--max-workers",
                Integer.toString(maxWorkers)) : List.of();
    }

    /** The most workers the job may have: {@code workers} unless elastic (checked). */
    int maxWorkers(int workers) {
        return elastic && maxWorkers != null ? maxWorkers : workers;
    }

    /** Whether rank 0 of the loopback form starts a joiner at training epoch {@code epoch}'s start. */
    boolean joinsAt(int epoch) {
        return joinAt != null && joinAt == epoch;
    }

    /** Whether rank 0 of the loopback form acts at some epoch's start ({@link #atEpochStart}). */
    boolean acts() {
        return !killsAt.isEmpty() || joinAt != null;
    }

    /** What the header says of an elastic job; null if not elastic. */
    String describe() {
        return !elastic ? null : "elastic: minWorkers " + (minWorkers == null ? "the job's" : minWorkers)
                + "; each epoch's batches split over the workers of the view agreed at its start"
                + (killsAt.isEmpty() ? "" : "; kills (rank@epoch) " + killsText())
                + (joinAt == null ? "" : "; a joiner started at epoch " + joinAt);
    }

    private String killsText() {
        List<String> t = new ArrayList<>();
        killsAt.forEach((epoch, ranks) -> ranks.forEach(r -> t.add(r + "@" + epoch)));
        return String.join(",", t);
    }

    /**
     * Rank 0 of the loopback form, at the start of training epoch {@code epoch}, once its split is agreed (so
     * a worker killed now is lost during the epoch, which its share was given for): kills the workers of
     * {@code --kill} for this epoch and starts the joiner of {@code --join-at}, saying so.
     *
     * @param joinerArgs the joiner's command line (it gets a free port of its own)
     */
    void atEpochStart(int epoch, WorkerProcesses workers, Supplier<List<String>> joinerArgs, Path joinerLog) {
        for (int rank : killsAt.getOrDefault(epoch, List.of())) {
            long pid = workers.kill(rank);
            System.out.printf("epoch %d: killed worker rank %d (process %d)%n", epoch, rank, pid);
        }
        if (joinAt != null && joinAt == epoch) {
            try {
                long pid = workers.startJoiner(joinerArgs.get(), joinerLog);
                System.out.printf("epoch %d: started a joiner (process %d), logging to %s%n", epoch, pid, joinerLog);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start the joiner of --join-at " + epoch, e);
            }
        }
    }
}
