package org.depengine.examples;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * The worker JVMs of a {@code --workers N} run on loopback: this process is rank 0 and starts ranks
 * 1..N-1 of the same example with the same module path (or class path), each logging to a file of its own.
 * Each worker gets rank 0's JVM options ({@code JAVA_OPTS} of {@code run-example}: settings, heap, JIT),
 * so every rank runs with the same settings, except the options that would make two JVMs share a file or
 * a port ({@link #sharedJvmOptions}); those are named on stderr.
 */
final class WorkerProcesses implements AutoCloseable {
    private final String main;
    private final List<Process> processes = new ArrayList<>();
    private final List<Path> logs = new ArrayList<>();

    /**
     * Rank 0 of a loopback run of the example {@code main}: places {@code workers} workers on free loopback
     * ports, starts ranks 1.. with {@code workerArgs} (each logging to {@code main.rankR.log} in the
     * temporary directory), says so, runs {@code rank0}, then checks how the others ended.
     *
     * @return {@code rank0}'s status, or 1 (with a line on stderr) when another worker failed
     */
    static int runOnLoopback(Class<?> main, ClusterOptions cluster, int workers, String kvstoreType,
            IntFunction<List<String>> workerArgs, Callable<Integer> rank0) throws Exception {
        String name = main.getSimpleName();
        String job = cluster.placeOnLoopback(freePorts(workers), name.toLowerCase(Locale.ROOT) + "-"
                + UUID.randomUUID());
        Path logDir = Path.of(System.getProperty("java.io.tmpdir"));
        try (WorkerProcesses others = new WorkerProcesses(main)) {
            for (int r = 1; r < workers; r++) {
                others.start(r, workerArgs.apply(r), logDir.resolve(name + ".rank" + r + ".log"));
            }
            System.out.printf("kvstore %s: %d workers on loopback (%s), job %s; ranks 1..%d log to %s%n", kvstoreType,
                    workers, cluster.members(), job, workers - 1, others.logs());
            int status = rank0.call();
            String failure = others.awaitAll(120);
            if (failure != null) {
                System.err.println(name + ": " + failure);
                return 1;
            }
            return status;
        }
    }

    /**
     * Quiets Hazelcast (the dist_* stores), before it starts: its logs go through SLF4J, and its start-up
     * note about JDK internals is noise in an example's output.
     */
    static void quietHazelcast() {
        System.setProperty("hazelcast.logging.type", "slf4j");
        String factory = "org.slf4j.simpleLogger.log.com.hazelcast.instance.impl.HazelcastInstanceFactory";
        if (System.getProperty(factory) == null) {
            System.setProperty(factory, "error");
        }
    }

    /** Workers that run the example {@code main}. */
    WorkerProcesses(Class<?> main) {
        this.main = main.getName();
    }

    /** {@code n} free loopback ports, one per worker's Hazelcast member. */
    static List<Integer> freePorts(int n) throws IOException {
        List<ServerSocket> sockets = new ArrayList<>();
        List<Integer> ports = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                sockets.add(s);
                ports.add(s.getLocalPort());
            }
        } finally {
            for (ServerSocket s : sockets) {
                s.close();
            }
        }
        return ports;
    }

    /**
     * The JVM options of {@code rank0} (this JVM's, as the launcher got them) that a worker JVM is started
     * with: all but the module launch (the worker gets its own), and those that would make two JVMs share
     * a file or a port: agents and debuggers, flight recordings, and logs to a file. The others (system
     * properties, heap and JIT options) go to every worker, so the ranks do not run with different settings.
     *
     * @param rank0 this JVM's options
     * @param leftOut receives the options left out
     */
    static List<String> sharedJvmOptions(List<String> rank0, List<String> leftOut) {
        List<String> shared = new ArrayList<>();
        for (String o : rank0) {
            // The module launch, which the JVM reports as --module-path=P and -Djdk.module.main=M: start()
            // adds the worker's own.
            if (o.startsWith("-Djdk.module.") || o.startsWith("--module-path") || o.startsWith("--enable-native-access")) {
                continue;
            }
            if (o.startsWith("-agentlib:") || o.startsWith("-agentpath:") || o.startsWith("-javaagent:")
                    || o.startsWith("-Xrunjdwp") || o.equals("-Xdebug") || o.startsWith("-XX:StartFlightRecording")
                    || o.startsWith("-XX:FlightRecorderOptions") || (o.startsWith("-Xlog") && o.contains("file="))) {
                leftOut.add(o);
                continue;
            }
            shared.add(o);
        }
        return shared;
    }

    /** Starts rank {@code rank} with {@code args} (the worker's own command line), logging to {@code log}. */
    void start(int rank, List<String> args, Path log) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        List<String> leftOut = new ArrayList<>();
        cmd.addAll(sharedJvmOptions(ManagementFactory.getRuntimeMXBean().getInputArguments(), leftOut));
        if (!leftOut.isEmpty() && rank == 1) {
            System.err.println("workers 1.. do not get these JVM options of rank 0 (two JVMs would share a file or a "
                    + "port): " + leftOut);
        }
        String modulePath = System.getProperty("jdk.module.path");
        if (modulePath != null) {
            cmd.add("--enable-native-access=jocl,jcuda,org.depengine.device.cuda"); // as run-example does
            cmd.add("--module-path");
            cmd.add(modulePath);
            cmd.add("-m");
            cmd.add("org.depengine.examples/" + main);
        } else {
            cmd.add("-cp");
            cmd.add(System.getProperty("java.class.path"));
            cmd.add(main);
        }
        cmd.addAll(args);
        Files.createDirectories(log.toAbsolutePath().getParent());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        processes.add(p);
        logs.add(log);
    }

    /** Where the workers log, in rank order from rank 1. */
    List<Path> logs() {
        return List.copyOf(logs);
    }

    /**
     * Waits up to {@code seconds} for every worker to exit.
     *
     * @return null when all exited with status 0, else what went wrong, with the end of the worker's log
     */
    String awaitAll(long seconds) throws InterruptedException, IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        for (int i = 0; i < processes.size(); i++) {
            Process p = processes.get(i);
            if (!p.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                return "worker rank " + (i + 1) + " did not exit within " + seconds + " s; log " + logs.get(i);
            }
            if (p.exitValue() != 0) {
                return "worker rank " + (i + 1) + " exited with status " + p.exitValue() + "; log " + logs.get(i)
                        + ":" + System.lineSeparator() + tail(logs.get(i));
            }
        }
        return null;
    }

    private static String tail(Path log) throws IOException {
        List<String> lines = Files.readAllLines(log);
        return String.join(System.lineSeparator(), lines.subList(Math.max(0, lines.size() - 15), lines.size()));
    }

    /** Kills the workers still running (after a failure of this process). */
    @Override
    public void close() {
        for (Process p : processes) {
            if (p.isAlive()) {
                p.destroyForcibly();
            }
        }
    }
}
