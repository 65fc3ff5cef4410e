package org.depengine.examples;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.device.Device;
import org.depengine.api.device.DeviceArray;
import org.depengine.api.device.Devices;
import org.depengine.api.device.primitive.Memcpy;
import org.depengine.kvstore.KVStore;
import org.depengine.kvstore.KVStoreSettings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * One data-parallel step of a small CNN's 50 keys ({@link SmallCnn}) through a {@code dist_sync}
 * KVStore — every worker pushes its gradient of every key and pulls every key's new value, then waits
 * — timed step by step, against a TCP echo of the same bytes over the same path in the same run (rank 0
 * to rank 1's host, or over loopback with one worker). Workers as in {@link MultiDeviceTraining}:
 * {@code --workers N} on loopback, or one per machine with {@code --members}, {@code --rank} and
 * {@code --job}. Every worker pushes {@code rank + 1} in every element and the store keeps the sum, so
 * after the steps every pulled element must be {@code N(N+1)/2}: a worker that reads anything else fails.
 *
 * <p>Rank 0 prints the model, the echo's time (before and after the steps), each step's time, and a
 * last line {@code RESULT workers=N bytes=B step_ms=… echo_ms=…} (medians) for a harness to read.
 */
@Command(name = "KVStoreModelStep", sortOptions = false,
        description = {"Pushes and pulls the 50 keys of a small CNN (a pre-activation ResNet for CIFAR-10 with a",
                "VGG-style head: 1 KiB to 4 MiB a key, 27.4 MB in all) through a dist_sync KVStore, one step at a",
                "time, and prints each step's time beside a TCP echo of the same bytes over the same path",
                "(rank 0 to rank 1, or loopback with one worker), measured in the same run. --workers N starts N",
                "worker JVMs on loopback; on N machines run it once per machine with the same --members and --job",
                "and each machine's --rank."})
public final class KVStoreModelStep implements Callable<Integer> {
    private static final String STORE = "dist_sync";
    /** The echo server listens on the member's port plus this. */
    private static final int ECHO_PORT_OFFSET = 1;

    @Mixin
    private CommonOptions common = new CommonOptions();

    @Mixin
    private ClusterOptions cluster = new ClusterOptions();

    @Option(names = "--steps", paramLabel = "N", description = "timed steps (default 10)")
    private int steps = 10;

    @Option(names = "--warmup", paramLabel = "N", description = "untimed steps first (default 3)")
    private int warmup = 3;

    @Option(names = "--echo-rounds", paramLabel = "N", description = "echo round trips before and after the steps (default 3 each)")
    private int echoRounds = 3;

    @Option(names = "--marks", description = "rank 0: before and after the timed steps, print 'mark: steps begin' "
            + "(or end) and wait for a line on standard input, so that a harness can read counters at those points")
    private boolean marks;

    private KVStoreModelStep() {
    }

    /** Entry point: see {@link Cli} for the exit status. */
    public static void main(String[] args) {
        WorkerProcesses.quietHazelcast();
        System.exit(Cli.run(new KVStoreModelStep(), args));
    }

    @Override
    public Integer call() throws Exception {
        int workers = cluster.check(STORE);
        Cli.inRange("--steps", steps, 1, 100_000);
        Cli.inRange("--warmup", warmup, 0, 100_000);
        Cli.inRange("--echo-rounds", echoRounds, 1, 1000);
        if (!cluster.startsWorkers(workers)) {
            return run(workers);
        }
        return WorkerProcesses.runOnLoopback(KVStoreModelStep.class, cluster, workers, STORE, r -> {
            List<String> a = new ArrayList<>(List.of("--engine", common.engine, "--steps", Integer.toString(steps),
                    "--warmup", Integer.toString(warmup), "--echo-rounds", Integer.toString(echoRounds)));
            a.addAll(cluster.workerArgs(r));
            return a;
        }, () -> run(workers));
    }

    private int run(int workers) throws Exception {
        List<SmallCnn.Key> keys = SmallCnn.keys();
        long bytes = 4 * SmallCnn.floats(keys);
        KVStoreSettings settings = cluster.storeSettings();
        int rank = cluster.rank();
        boolean print = rank == 0;
        ServerSocket echoServer = echoServer(settings, rank, workers);
        try (Engine engine = Engine.create(common.engine);
             KVStore kv = KVStore.open(engine, STORE, settings)) {
            Model model = new Model(engine, keys, rank);
            for (int k = 0; k < keys.size(); k++) {
                kv.init(keys.get(k).name(), model.weights.get(k));
            }
            for (int s = 0; s < warmup; s++) {
                model.step(kv);
            }
            if (print) {
                System.out.printf(Locale.ROOT, "model: %d keys of a small CNN, %d to %d floats each, %,d floats = %.1f MB; "
                        + "kvstore %s, %d worker%s; engine %s%n", keys.size(), model.minFloats(), model.maxFloats(),
                        bytes / 4, bytes / 1e6, STORE, workers, workers == 1 ? "" : "s", engine.name());
            }
            long[] echoBefore = print ? echo(echoTarget(settings, workers), bytes) : null;
            kv.barrier(); // rank 0's echo is over: nothing else is on the links when the steps start
            mark("steps begin");
            long[] times = new long[steps];
            for (int s = 0; s < steps; s++) {
                long t0 = System.nanoTime();
                model.step(kv);
                times[s] = System.nanoTime() - t0;
                if (print) {
                    System.out.printf(Locale.ROOT, "step %d: %.1f ms%n", s + 1, times[s] / 1e6);
                }
            }
            mark("steps end");
            model.check(workers);
            long[] echoAfter = print ? echo(echoTarget(settings, workers), bytes) : null;
            kv.barrier(); // rank 1 serves the echo until rank 0 is done with it
            if (print) {
                report(workers, bytes, times, echoBefore, echoAfter);
            }
            return 0;
        } finally {
            if (echoServer != null) {
                echoServer.close();
            }
        }
    }

    private void report(int workers, long bytes, long[] times, long[] echoBefore, long[] echoAfter) {
        long[] echoes = new long[echoBefore.length + echoAfter.length];
        System.arraycopy(echoBefore, 0, echoes, 0, echoBefore.length);
        System.arraycopy(echoAfter, 0, echoes, echoBefore.length, echoAfter.length);
        double step = median(times) / 1e6;
        double echo = median(echoes) / 1e6;
        System.out.printf(Locale.ROOT, "TCP echo of the same %.1f MB each way: median %.1f ms before the steps, %.1f ms "
                + "after (%.0f MB/s each way)%n", bytes / 1e6, median(echoBefore) / 1e6, median(echoAfter) / 1e6,
                bytes / 1e3 / echo);
        System.out.printf(Locale.ROOT, "step (push and pull of every key, then wait): median %.1f ms, min %.1f, max %.1f "
                + "over %d steps; %.0f MB/s of model bytes each way; %.1f × the echo%n", step,
                Arrays.stream(times).min().orElseThrow() / 1e6, Arrays.stream(times).max().orElseThrow() / 1e6,
                times.length, bytes / 1e3 / step, step / echo);
        System.out.printf(Locale.ROOT, "RESULT workers=%d bytes=%d step_ms=%.1f echo_ms=%.1f%n", workers, bytes, step, echo);
    }

    /** Rank 0 with {@code --marks}: says where it is and waits for the harness's line. */
    private void mark(String where) throws IOException {
        if (!marks || cluster.rank() != 0) {
            return;
        }
        System.out.println("mark: " + where);
        System.out.flush();
        String line = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
        if (line == null) {
            throw new IllegalStateException("--marks: standard input closed at '" + where + "'; the harness is gone");
        }
    }

    /** Rank 1 serves rank 0's echo on its member's address and port + 1; the others (and a lone worker) none. */
    private static ServerSocket echoServer(KVStoreSettings settings, int rank, int workers) throws IOException {
        if (workers == 1 || rank != 1) {
            return null;
        }
        InetSocketAddress own = echoAddress(settings, rank);
        return TcpEcho.serve(own.getAddress(), own.getPort());
    }

    /** Where rank 0's echo goes: rank 1's echo server, or null (one worker: a loopback server of its own). */
    private static InetSocketAddress echoTarget(KVStoreSettings settings, int workers) {
        return workers == 1 ? null : echoAddress(settings, 1);
    }

    private static InetSocketAddress echoAddress(KVStoreSettings settings, int rank) {
        String m = settings.get("members").orElseThrow().split(",")[rank].strip();
        int colon = m.lastIndexOf(':');
        return new InetSocketAddress(m.substring(0, colon), Integer.parseInt(m.substring(colon + 1)) + ECHO_PORT_OFFSET);
    }

    /** {@code echoRounds} round trips of {@code bytes} to {@code target} (null: a loopback server of our own). */
    private long[] echo(InetSocketAddress target, long bytes) throws IOException {
        byte[] data = new byte[Math.toIntExact(bytes)];
        long[] t = new long[echoRounds];
        try (ServerSocket own = target == null ? TcpEcho.serve(InetAddress.getLoopbackAddress(), 0) : null;
             TcpEcho echo = TcpEcho.connect(target != null ? target
                     : new InetSocketAddress(InetAddress.getLoopbackAddress(), own.getLocalPort()))) {
            echo.roundTrip(data); // warm-up
            for (int i = 0; i < t.length; i++) {
                t[i] = echo.roundTrip(data);
            }
        }
        return t;
    }

    private static double median(long[] v) {
        long[] s = v.clone();
        Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0;
    }

    /** This worker's arrays: per key, the gradient it pushes ({@code rank + 1} everywhere) and the weights it pulls. */
    private static final class Model {
        private final Engine engine;
        private final List<SmallCnn.Key> keys;
        private final Memcpy memcpy;
        final List<DeviceArray> grads = new ArrayList<>();
        final List<DeviceArray> weights = new ArrayList<>();

        Model(Engine engine, List<SmallCnn.Key> keys, int rank) {
            this.engine = engine;
            this.keys = keys;
            Device cpu = Devices.device(Context.cpu());
            memcpy = cpu.requirePrimitive(Memcpy.class);
            ByteBuffer zeros = ByteBuffer.allocateDirect(4 * maxFloats()).order(ByteOrder.nativeOrder());
            ByteBuffer gradient = ByteBuffer.allocateDirect(4 * maxFloats()).order(ByteOrder.nativeOrder());
            FloatBuffer f = gradient.asFloatBuffer();
            for (int i = 0; i < f.capacity(); i++) {
                f.put(i, rank + 1);
            }
            for (SmallCnn.Key k : keys) {
                grads.add(filled(cpu, k, "grad", gradient));
                weights.add(filled(cpu, k, "weights", zeros));
            }
        }

        private DeviceArray filled(Device cpu, SmallCnn.Key k, String what, ByteBuffer with) {
            DeviceArray a = new DeviceArray(cpu.allocate(4L * k.floats()), engine.newVariable(k.name() + " " + what));
            ByteBuffer src = with.duplicate().limit(4 * k.floats());
            engine.op("fill " + k.name() + " " + what).writes(a.var()).run(rc -> memcpy.hostToDevice(rc.stream(), src,
                    a.buffer(), 0));
            return a;
        }

        /** One step: push every gradient and pull every key, in the network's order; waits for the pulls. */
        void step(KVStore kv) {
            for (int k = 0; k < keys.size(); k++) {
                kv.pushPull(keys.get(k).name(), List.of(grads.get(k)), List.of(weights.get(k)), 0);
            }
            engine.waitForAll();
        }

        /** Every pulled element is the sum of the workers' pushes, {@code N(N+1)/2}. */
        void check(int workers) {
            float expected = workers * (workers + 1) / 2f;
            ByteBuffer host = ByteBuffer.allocateDirect(4 * maxFloats()).order(ByteOrder.nativeOrder());
            for (int k = 0; k < keys.size(); k++) {
                DeviceArray w = weights.get(k);
                ByteBuffer dst = host.duplicate().limit(4 * keys.get(k).floats());
                engine.op("read " + keys.get(k).name()).reads(w.var()).run(rc -> memcpy.deviceToHost(rc.stream(),
                        w.buffer(), 0, dst));
                engine.waitForAll();
                FloatBuffer f = host.asFloatBuffer();
                for (int i = 0; i < keys.get(k).floats(); i++) {
                    if (f.get(i) != expected) {
                        throw new IllegalStateException("key " + keys.get(k).name() + " element " + i + " is " + f.get(i)
                                + " after the steps; the sum of " + workers + " workers' pushes is " + expected);
                    }
                }
            }
        }

        int maxFloats() {
            return keys.stream().mapToInt(SmallCnn.Key::floats).max().orElseThrow();
        }

        int minFloats() {
            return keys.stream().mapToInt(SmallCnn.Key::floats).min().orElseThrow();
        }
    }
}
