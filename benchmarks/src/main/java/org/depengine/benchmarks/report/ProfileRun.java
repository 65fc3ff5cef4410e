package org.depengine.benchmarks.report;

import java.util.List;
import java.util.Map;

/**
 * What one {@code benchmarks/run.sh profile} run found, for one JDK: per profiled benchmark, the
 * allocation per run (JMH's gc profiler) and a summary of its JFR recording (CPU per thread role, the
 * hottest frames, the allocated classes). Written by {@link ProfileSummary} as
 * {@code results/profiles/jdkN.json}; read by the report, which quotes it for the missed targets.
 *
 * @param jdk the JDK's feature version
 * @param javaVersion the forked JVM's full version
 * @param date when the summary was written (ISO-8601)
 * @param commit the git commit the benchmarks were built from (empty when unknown)
 * @param cores the machine's processors (JFR's thread CPU loads are fractions of all of them)
 * @param settings JMH's forks, warm-up and measurement settings
 * @param profiles one per profiled benchmark and parameter setting
 */
record ProfileRun(int jdk, String javaVersion, String date, String commit, int cores, String settings,
                  List<Profile> profiles) {

    /**
     * One profiled benchmark.
     *
     * @param benchmark JMH's full benchmark name
     * @param params its JMH parameters
     * @param opsPerRun ops in one run of the workload (one JMH op)
     * @param nanosPerRun the profiled run's median time of one run (slower than an unprofiled run)
     * @param allocBytesPerRun bytes allocated per run ({@code gc.alloc.rate.norm}; NaN if not measured)
     * @param gcCount garbage collections during the measurement (NaN if not measured)
     * @param gcMillis their time, ms (NaN if not measured)
     * @param samples JFR's execution samples, all threads
     * @param roles the threads grouped by role (pusher, engine workers, ...), most samples first
     * @param allocationBytes the sum of the allocation samples' weights
     * @param allocations the most allocated classes with their allocation site, by weight
     */
    record Profile(String benchmark, Map<String, String> params, int opsPerRun, double nanosPerRun,
                   double allocBytesPerRun, double gcCount, double gcMillis, long samples, List<Role> roles,
                   double allocationBytes, List<Share> allocations) {

        /** The result this profile belongs to, for matching it to a target's workload, shape and contender. */
        Result key() {
            int method = benchmark.lastIndexOf('.');
            int type = benchmark.lastIndexOf('.', method - 1);
            return new Result(benchmark.substring(type + 1, method), benchmark.substring(method + 1), params,
                    nanosPerRun, Double.NaN);
        }
    }

    /**
     * The threads of one role.
     *
     * @param role {@code pusher}, {@code engine workers}, {@code baseline pool} or {@code other}
     * @param threads how many threads had samples or CPU load
     * @param cpuCores their CPU (user + system), in cores, averaged over the recording (NaN: no CPU event,
     *     the recording was shorter than the event's period)
     * @param busiestThreads the threads with the most CPU, in cores (a worker idling shows here)
     * @param samples their execution samples
     * @param selfFrames the hottest top-of-stack methods, by samples
     * @param engineFrames the hottest innermost engine methods (the engine code that is running or that
     *     called the JDK code on top; the benchmark's own code is not the engine's), by samples
     * @param profilerSamples the samples with a frame of depengine's profiler ({@code org.depengine.profiler})
     *     anywhere on the stack: what recording costs this role when the engine runs under a profiler; null
     *     in a summary written before it was counted
     */
    record Role(String role, int threads, double cpuCores, List<Share> busiestThreads, long samples, List<Share> selfFrames,
                List<Share> engineFrames, Long profilerSamples) {
    }

    /**
     * A name with its weight (samples, allocated bytes or CPU cores).
     *
     * @param name a method ({@code Type.method}), {@code Class ← allocation site} or a thread
     * @param weight its samples, bytes or cores
     */
    record Share(String name, double weight) {
    }

    /**
     * The profile of exactly {@code result}'s benchmark: the same workload, method and every parameter
     * (engine variant included: {@code profiling=on} is another profile than {@code off}); null if that
     * benchmark was not profiled.
     */
    Profile find(Result result) {
        for (Profile p : profiles) {
            Result k = p.key();
            if (k.workload().equals(result.workload()) && k.method().equals(result.method())
                    && k.params().equals(result.params())) {
                return p;
            }
        }
        return null;
    }

    /** Whether any benchmark of {@code workload} (a benchmark class's simple name) was profiled. */
    boolean covers(String workload) {
        return profiles.stream().anyMatch(p -> p.key().workload().equals(workload));
    }

    /**
     * The profile of {@code contender} on the workload shape (any method), or null if it was not
     * profiled: for a comparison (cf's profile of the same op list), not for the result a target is
     * judged on ({@link #find(Result)}).
     */
    Profile find(String workload, Map<String, String> shape, String contender) {
        for (Profile p : profiles) {
            Result k = p.key();
            if (k.workload().equals(workload) && k.shapeParams().equals(shape) && k.contender().equals(contender)) {
                return p;
            }
        }
        return null;
    }
}
