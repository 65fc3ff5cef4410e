package org.depengine.examples;

import java.util.List;
import java.util.Locale;
import org.depengine.profiler.AggregateStats;

/**
 * {@code MultiDeviceTraining --profile}'s line: what the engine costs per training batch after the first
 * epoch, from the pushing thread's clock and, when the profiler runs (it is cleared after the first epoch),
 * from its times of the ops. The wall time less the ops' own run time is the engine's part on the naive
 * engine, where every op runs on the pushing thread; on the threaded engines ops overlap, so there it is
 * a lower bound, and the queue wait (ready to started: the hand-off to a worker) shows where more goes.
 * The profiler's own recording adds to the wall time; compare runs with the same {@code --trace}.
 */
final class StepCosts {
    private StepCosts() {
    }

    /**
     * The summary line for the batches {@code run} pushed after its first epoch and, if {@code stats} is
     * not null, the ops the profiler recorded meanwhile.
     */
    static String line(AggregateStats stats, Trainer run) {
        long steps = Math.max(1, run.stepsPushed());
        List<Long> ends = run.epochEnds;
        double wall = (ends.size() > 1 ? ends.get(ends.size() - 1) - ends.get(0) : 0) / 1e3 / steps;
        double push = run.stepPushNanos() / 1e3 / steps;
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT,
                "engine per batch (after epoch 1, %d batches): wall %.1f us; pushing thread in pushes and replays %.1f us",
                steps, wall, push));
        if (stats == null) {
            return sb.append(" (no profiler: --trace off)").toString();
        }
        long runNs = 0;
        long waitNs = 0;
        long waits = 0;
        for (AggregateStats.Row r : stats.rows()) {
            runNs += r.run().totalNanos();
            waitNs += r.queueWait().totalNanos();
            waits += r.queueWait().count();
        }
        double ops = (double) stats.opCount() / steps;
        double ran = runNs / 1e3 / steps;
        return sb.append(String.format(Locale.ROOT, " (%.2f us/op); profiler: %.1f ops, their run %.1f us, wall - run "
                + "%.1f us (%.2f us/op), queue wait %.2f us/op", push / ops, ops, ran, wall - ran, (wall - ran) / ops,
                waits == 0 ? 0 : waitNs / 1e3 / waits)).toString();
    }
}
