package org.depengine.benchmarks.report;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Properties;
import org.depengine.api.device.Devices;
import org.depengine.benchmarks.workload.Spin;

/**
 * Records the machine and the JDK a benchmark run used, next to its JMH results, so that the report
 * can be regenerated later (or elsewhere) and still say where the numbers come from; also whether
 * OpenCL is usable, the busy-spin rate ({@link Spin#calibrate()}) that run.sh hands to every
 * benchmark JVM, and the core-to-core round trip ({@link CoreRoundTrip}), which the hand-off workloads
 * depend on as much as on the cores' speed. A program:
 * {@code java -cp benchmarks.jar org.depengine.benchmarks.report.MachineInfo OUT.properties MODE},
 * run with the same {@code java} as the benchmarks.
 */
public final class MachineInfo {
    /** Keys of the properties file. */
    static final String MODE = "mode";
    static final String CORES = "cores";
    static final String CPU = "cpu.model";
    static final String MEMORY = "memory";
    static final String JAVA_VERSION = "java.version";
    static final String JAVA_VENDOR = "java.vendor";
    static final String JAVA_VM = "java.vm";
    static final String JAVA_FEATURE = "java.feature";
    static final String OS = "os";
    static final String DATE = "date";
    static final String OPENCL = "opencl.available";
    static final String SPIN = "spin.iterationsPerMicro";
    /** Two threads' round trip through one cache line, in ns ({@link CoreRoundTrip}); with 1 core, none. */
    static final String ROUND_TRIP = "coreRoundTrip.nanos";
    /**
     * The JVM options run.sh gives every fork (the fixed, pre-touched heap), appended by run.sh: the
     * heap settings change absolute figures, so a result is read with them.
     */
    static final String FORK_JVM_ARGS = "fork.jvmArgs";
    /** The git commit the benchmarks were built from, appended by run.sh (git is not this program's business). */
    static final String COMMIT = "git.commit";

    private MachineInfo() {
    }

    /**
     * Writes the properties file.
     *
     * @param args the output file and the run's mode (e.g. {@code quick})
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            throw new IllegalArgumentException("usage: MachineInfo OUT.properties MODE");
        }
        Properties p = collect(args[1]);
        try (OutputStream out = Files.newOutputStream(Path.of(args[0]))) {
            p.store(out, "machine and JDK of a depengine benchmark run");
        }
    }

    static Properties collect(String mode) {
        Properties p = new Properties();
        p.setProperty(MODE, mode);
        p.setProperty(CORES, String.valueOf(Runtime.getRuntime().availableProcessors()));
        p.setProperty(CPU, cpuModel());
        p.setProperty(MEMORY, memory());
        p.setProperty(JAVA_VERSION, System.getProperty("java.runtime.version", System.getProperty("java.version")));
        p.setProperty(JAVA_VENDOR, System.getProperty("java.vendor", "?"));
        p.setProperty(JAVA_VM, System.getProperty("java.vm.name", "?"));
        p.setProperty(JAVA_FEATURE, String.valueOf(Runtime.version().feature()));
        p.setProperty(OS, System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch"));
        p.setProperty(DATE, Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
        p.setProperty(OPENCL, String.valueOf(openClAvailable()));
        p.setProperty(SPIN, String.format(java.util.Locale.ROOT, "%.2f", Spin.calibrate()));
        if (Runtime.getRuntime().availableProcessors() > 1) { // with one core the echo thread would spin for its slice
            double rt = CoreRoundTrip.measureNanos();
            if (rt > 0) {
                p.setProperty(ROUND_TRIP, String.format(java.util.Locale.ROOT, "%.0f", rt));
            }
        }
        return p;
    }

    /** Whether opencl:0 can be used here (run.sh then adds it to ComputeCopyOverlap's devices). */
    private static boolean openClAvailable() {
        try {
            return Devices.types().contains("opencl") && Devices.provider("opencl").probe().available()
                    && Devices.provider("opencl").deviceCount() > 0;
        } catch (RuntimeException | LinkageError e) {
            return false; // no driver, no native library: simply not available
        }
    }

    private static String cpuModel() {
        for (String line : lines(Path.of("/proc/cpuinfo"))) {
            if (line.startsWith("model name")) {
                return line.substring(line.indexOf(':') + 1).strip();
            }
        }
        return System.getProperty("os.arch") + " (model unknown: no /proc/cpuinfo)";
    }

    private static String memory() {
        for (String line : lines(Path.of("/proc/meminfo"))) {
            if (line.startsWith("MemTotal:")) {
                String[] parts = line.split("\\s+");
                long kib = Long.parseLong(parts[1]);
                return String.format(java.util.Locale.ROOT, "%.1f GiB", kib / 1024.0 / 1024.0);
            }
        }
        return "unknown (no /proc/meminfo)";
    }

    private static List<String> lines(Path p) {
        try {
            return Files.readAllLines(p, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return List.of();
        }
    }
}
