package org.depengine.benchmarks.report;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Measures how long two threads take to pass a value to each other and back (a core-to-core round
 * trip through one shared cache line), recorded with each run by {@link MachineInfo}. Every op of a
 * threaded engine crosses threads at least twice (pusher to worker, worker back to the variable's next
 * op), as does every CompletableFuture stage, so this latency sets a floor under the per-op figures: two
 * machines with equal single-thread speed can differ by 3x on the hand-off workloads when it differs.
 * {@link HostPlacementProfiler} measures it around every measurement iteration too: a virtual
 * machine's two cores can move on the host while it runs, and the latency with them.
 */
final class CoreRoundTrip {
    private static final int ROUNDS = 5;
    private static final int TRIPS = 200_000;

    private CoreRoundTrip() {
    }

    /** The median, over a few rounds, of the mean round trip in nanoseconds; -1 if it could not be measured. */
    static double measureNanos() {
        double[] rounds = rounds(TRIPS);
        return rounds == null ? -1 : rounds[ROUNDS / 2];
    }

    /**
     * The fastest of a few rounds of {@code trips} round trips each, in nanoseconds; -1 if it could not
     * be measured. Threads still running on the machine only slow a round down, so the fastest round
     * is the reading least disturbed by them.
     */
    static double fastestNanos(int trips) {
        double[] rounds = rounds(trips);
        return rounds == null ? -1 : rounds[0];
    }

    /** The rounds' mean round trips, sorted; null if interrupted. */
    private static double[] rounds(int trips) {
        double[] rounds = new double[ROUNDS];
        for (int r = 0; r < ROUNDS; r++) {
            rounds[r] = oneRound(trips);
            if (rounds[r] < 0) {
                return null;
            }
        }
        Arrays.sort(rounds);
        return rounds;
    }

    /** One round: the caller writes odd numbers, a second thread answers each with the next even one. */
    private static double oneRound(int trips) {
        AtomicLong cell = new AtomicLong();
        Thread echo = new Thread(() -> {
            for (long i = 1; i <= trips; i++) {
                long odd = 2 * i - 1;
                while (cell.get() != odd) {
                    Thread.onSpinWait();
                }
                cell.set(odd + 1);
            }
        }, "core-round-trip-echo");
        echo.setDaemon(true);
        echo.start();
        long start = System.nanoTime();
        for (long i = 1; i <= trips; i++) {
            cell.set(2 * i - 1);
            while (cell.get() != 2 * i) {
                Thread.onSpinWait();
            }
        }
        long elapsed = System.nanoTime() - start;
        try {
            echo.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
        return elapsed / (double) trips;
    }
}
