package org.depengine.examples;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.IntFunction;

/**
 * The worker JVMs of a {@code --workers N} run on loopback: this process is rank 0 and starts ranks
 * 1..N-1 of the same example with the same module path (or class path), each logging to a file of its own.
 * Each worker gets rank 0's JVM options ({@code JAVA_OPTS} of {@code run-example}: settings, heap, JIT),
 * so every rank runs with the same settings, except the options that would make two JVMs share a file or
 * a port ({@link #sharedJvmOptions}); those are named on stderr. An elastic job's demonstration kills a
 * worker ({@link #kill}) or starts one that joins ({@link #startJoiner}) while it runs; call those, and
 * {@link #awaitAll}, from the thread that runs rank 0.
 */
final class WorkerProcesses implements AutoCloseable {
    /** A started worker: its name in messages ("worker rank 2", "joiner"), its process and its log. */
    private record Worker(String name, Process process, Path log) {
    }

    private final String main;
    private final List<Worker> workers = new ArrayList<>();
    /** The workers killed on purpose ({@link #kill}): their exit is not a failure. */
    private final Set<Process> killed = new HashSet<>();

    /**
     * Rank 0 of a loopback run of the example {@code main}: places {@code workers} workers on free loopback
     * ports, starts ranks 1.. with {@code workerArgs} (each logging to {@code main.rankR.log} in the
     * temporary directory), says so, runs {@code rank0}, then checks how the others ended.
     *
     * @return {@code rank0}'s status, or 1 (with a line on stderr) when another worker failed
     */
    static int runOnLoopback(Class<?> main, ClusterOptions cluster, int workers, String kvstoreType,
            IntFunction<List<String>> workerArgs, Callable<Integer> rank0) throws Exception {
        return runOnLoopback(main, cluster, workers, kvstoreType, workerArgs, others -> rank0);
    }

    /**
     * As {@link #runOnLoopback(Class, ClusterOptions, int, String, IntFunction, Callable)}, where rank 0's
     * run gets the other workers, to kill some or start more ({@link #kill}, {@link #startJoiner}) while it
     * runs: what an elastic job's demonstration does.
     */
    static int runOnLoopback(Class<?> main, ClusterOptions cluster, int workers, String kvstoreType,
            IntFunction<List<String>> workerArgs, Function<WorkerProcesses, Callable<Integer>> rank0) throws Exception {
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
            int status = rank0.apply(others).call();
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

    /**
     * Quiets, in an elastic job, the warnings a worker's death is expected to cause (a lost peer's connections
     * reset, with a stack trace each), before the store starts: the store's own line says who left. A level
     * given on the command line wins.
     */
    static void quietExpectedLosses() {
        for (String logger : List.of("com.hazelcast.internal.server.tcp", "io.netty.channel.DefaultChannelPipeline")) {
            String level = "org.slf4j.simpleLogger.log." + logger;
            if (System.getProperty(level) == null) {
                System.setProperty(level, "error");
            }
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
        start("worker rank " + rank, args, log);
    }

    /**
     * Starts a worker that joins the running job, with {@code args} (its own command line), logging to
     * {@code log}; it is waited for at the end like the others.
     *
     * @return its process id
     */
    long startJoiner(List<String> args, Path log) throws IOException {
        return start("joiner", args, log).pid();
    }

    /**
     * Kills worker {@code rank} (as {@link #start}ed) at once, as a crash would ({@link Process#destroyForcibly()}):
     * its exit is then not a failure.
     *
     * @return its process id
     * @throws IllegalArgumentException if no worker of that rank was started
     */
    long kill(int rank) {
        String name = "worker rank " + rank;
        for (Worker w : workers) {
            if (w.name().equals(name)) {
                killed.add(w.process());
                w.process().destroyForcibly();
                return w.process().pid();
            }
        }
        throw new IllegalArgumentException("no " + name + " was started");
    }

    private Process start(String name, List<String> args, Path log) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        List<String> leftOut = new ArrayList<>();
        cmd.addAll(sharedJvmOptions(ManagementFactory.getRuntimeMXBean().getInputArguments(), leftOut));
        if (!leftOut.isEmpty() && workers.isEmpty()) {
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
        workers.add(new Worker(name, p, log));
        return p;
    }

    /** Where the workers log, in the order they were started (ranks from 1, then joiners). */
    List<Path> logs() {
        return workers.stream().map(Worker::log).toList();
    }

    /**
     * Waits up to {@code seconds} for every worker to exit (but those {@linkplain #kill killed}).
     *
     * @return null when all exited with status 0, else what went wrong, with the end of the worker's log
     */
    String awaitAll(long seconds) throws InterruptedException, IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        for (Worker w : workers) {
            Process p = w.process();
            if (killed.contains(p)) {
                continue;
            }
            if (!p.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                return w.name() + " did not exit within " + seconds + " s; log " + w.log();
            }
            if (p.exitValue() != 0) {
                return w.name() + " exited with status " + p.exitValue() + "; log " + w.log()
                        + ":" + System.lineSeparator() + tail(w.log());
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
        for (Worker w : workers) {
            if (w.process().isAlive()) {
                w.process().destroyForcibly();
            }
        }
    }
}
