package org.depengine.benchmarks.workload;

/**
 * Busy work of a calibrated length: a chain of dependent xor-shift-multiplies, so it costs CPU time (unlike
 * a loop on {@code System.nanoTime}, which a descheduled thread would "finish" without running, and
 * unlike a timed park, which Linux timer slack stretches to tens of microseconds).
 *
 * <p>Every contender of a run must do the same work, but JMH runs each in its own JVM: so the rate is
 * measured once by {@code run.sh} ({@link #calibrate()}, through {@code report.MachineInfo}) and
 * handed to every fork as the system property {@value #RATE_PROPERTY}. Without it, each JVM
 * calibrates itself on first use. Thread-safe.
 */
public final class Spin {
    /** Iterations per microsecond, set by run.sh for every benchmark JVM. */
    public static final String RATE_PROPERTY = "bench.spin.iterationsPerMicro";
    private static final long CALIBRATION_ITERATIONS = 1 << 20;
    private static final long WARM_UP_NANOS = 500_000_000L;
    private static volatile double iterationsPerNano;
    /** Written only when a result happens to be zero: keeps the loop from being optimised away. */
    private static volatile long sink;

    private Spin() {
    }

    /**
     * Runs {@code iterations} steps of the chain.
     *
     * @return the chain's value (feed it to {@link #consume})
     */
    public static long run(long iterations) {
        long x = iterations | 1;
        for (long k = 0; k < iterations; k++) {
            // Non-linear (xor-shift, then multiply): a compiler cannot fold several steps into one, as
            // it can for a plain multiply-add chain (JDK 25's C2 does, making it ~15 times faster).
            x = (x ^ (x >>> 31)) * 0x9E3779B97F4A7C15L;
        }
        return x;
    }

    /** Keeps {@code value} alive at the cost of one compare. */
    public static void consume(long value) {
        if (value == 0) {
            sink = value;
        }
    }

    /** The iterations that take about {@code nanos} of CPU time here (0 for 0). */
    public static long iterationsFor(long nanos) {
        if (nanos <= 0) {
            return 0;
        }
        return Math.max(1, Math.round(nanos * rate()));
    }

    /** Iterations per nanosecond on this machine, calibrating on first use. */
    public static double rate() {
        double r = iterationsPerNano;
        if (r == 0) {
            synchronized (Spin.class) {
                r = iterationsPerNano;
                if (r == 0) {
                    String given = System.getProperty(RATE_PROPERTY);
                    r = given != null ? parseRate(given) / 1000.0 : calibrate() / 1000.0;
                    iterationsPerNano = r;
                }
            }
        }
        return r;
    }

    /**
     * Measures iterations per microsecond on the calling thread: half a second of warm-up (so that
     * the loop runs fully compiled, not in the interpreter or a profiling tier), then the fastest of
     * 31 timed runs (the one least disturbed by other load).
     */
    public static double calibrate() {
        long until = System.nanoTime() + WARM_UP_NANOS;
        while (System.nanoTime() < until) {
            consume(run(CALIBRATION_ITERATIONS / 16));
        }
        long best = Long.MAX_VALUE;
        for (int k = 0; k < 31; k++) {
            long t0 = System.nanoTime();
            consume(run(CALIBRATION_ITERATIONS));
            best = Math.min(best, System.nanoTime() - t0);
        }
        return 1000.0 * CALIBRATION_ITERATIONS / Math.max(1, best);
    }

    private static double parseRate(String text) {
        try {
            double v = Double.parseDouble(text.strip());
            if (v > 0 && !Double.isInfinite(v)) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("system property " + RATE_PROPERTY + "='" + text
                + "' is not a positive number of spin iterations per microsecond; leave it unset to calibrate here");
    }
}
