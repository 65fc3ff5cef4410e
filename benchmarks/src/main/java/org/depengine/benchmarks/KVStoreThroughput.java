package org.depengine.benchmarks;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.FnProperty;
import org.depengine.api.device.DeviceArray;
import org.depengine.api.device.Devices;
import org.depengine.api.device.primitive.Memcpy;
import org.depengine.kvstore.KVStore;
import org.depengine.kvstore.KVStoreSettings;
import org.depengine.kvstore.Updater;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One {@code dist_sync} round of one key — every worker pushes its array and pulls the result — against
 * a raw loopback socket moving the same bytes each way, in the same run.
 *
 * <ul>
 *   <li>{@code kvRound}: time per round, {@code workers} stores (each its own Hazelcast member, in this
 *   JVM, talking over loopback TCP) pushing and pulling {@code bytes} concurrently through the KVStore
 *   API on an engine each: device-to-host copy, the send, the owner's sum and SGD step, the fetch, the
 *   host-to-device copy. MB/s per worker = bytes / time.</li>
 *   <li>{@code socketBaseline}: {@code bytes} written to a loopback echo server and read back: the floor
 *   for one worker's push plus pull.</li>
 * </ul>
 * The sizes are issue 29's: 1 KiB (latency: rounds per second = 10^6 / score), 256 KiB, 4 MiB and 16 MiB
 * (throughput: the ratio of {@code socketBaseline}'s score to {@code kvRound}'s at one size is the store's
 * share of the socket's speed for one worker; with more workers, {@code workers × bytes / kvRound} is the
 * aggregate). On a 2-core machine several workers share the cores: a functional check, not a scaling figure.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 2, jvmArgsAppend = {"-Dhazelcast.logging.type=slf4j", "-Dorg.slf4j.simpleLogger.log.com.hazelcast=error"})
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
public class KVStoreThroughput {

    /** Workers of one cluster, each with its engine, store and array of the key. */
    @State(Scope.Benchmark)
    public static class Cluster {
        @Param({"1024", "262144", "4194304", "16777216"})
        public int bytes;

        @Param({"1", "2", "3"})
        public int workers;

        /** Where the updater runs: {@code worker} (the store sums, dist_sync's default) or {@code server}. */
        @Param({"worker", "server"})
        public String updateOn;

        private final List<Engine> engines = new ArrayList<>();
        private final List<KVStore> stores = new ArrayList<>();
        private final List<DeviceArray> arrays = new ArrayList<>();

        @Setup(Level.Trial)
        public void open() throws IOException {
            List<Integer> ports = new ArrayList<>();
            List<ServerSocket> held = new ArrayList<>();
            for (int i = 0; i < workers; i++) {
                ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                held.add(s);
                ports.add(s.getLocalPort());
            }
            for (ServerSocket s : held) {
                s.close();
            }
            StringBuilder members = new StringBuilder();
            for (int p : ports) {
                members.append(members.length() == 0 ? "" : ",").append("127.0.0.1:").append(p);
            }
            String cluster = "kv-bench-" + UUID.randomUUID();
            List<CompletableFuture<KVStore>> opening = new ArrayList<>();
            for (int r = 0; r < workers; r++) {
                Engine e = Engine.create("perdevice");
                engines.add(e);
                KVStoreSettings s = KVStoreSettings.builder().set("members", members.toString()).rank(r).numWorkers(workers)
                        .set("clusterName", cluster).set("port", Integer.toString(ports.get(r))).set("portCount", "1")
                        .set("updateOn", updateOn).build();
                opening.add(CompletableFuture.supplyAsync(() -> KVStore.open(e, "dist_sync", s)));
            }
            int floats = bytes / 4;
            for (int r = 0; r < workers; r++) {
                KVStore kv = opening.get(r).join();
                kv.setUpdater(Updater.sgd(1e-6f));
                stores.add(kv);
                DeviceArray a = new DeviceArray(Devices.device(Context.cpu()).allocate(bytes),
                        engines.get(r).newVariable("w" + r));
                arrays.add(a);
                fill(engines.get(r), a, floats);
                kv.init("w", a);
            }
            round(); // every rank's init has landed
        }

        private static void fill(Engine e, DeviceArray a, int floats) {
            ByteBuffer b = ByteBuffer.allocateDirect(4 * floats).order(ByteOrder.nativeOrder());
            Memcpy m = a.device().requirePrimitive(Memcpy.class);
            e.pushSync(rc -> m.hostToDevice(rc.stream(), b, a.buffer(), 0), Context.cpu(), List.of(), List.of(a.var()),
                    FnProperty.NORMAL, 0, "fill");
        }

        /** Every worker pushes and pulls its array (one sync round); returns once every pull has landed. */
        void round() {
            for (int r = 0; r < workers; r++) {
                stores.get(r).pushPull("w", List.of(arrays.get(r)), List.of(arrays.get(r)), 0);
            }
            for (int r = 0; r < workers; r++) {
                engines.get(r).waitForVar(arrays.get(r).var(), Duration.ofSeconds(60));
            }
        }

        @TearDown(Level.Trial)
        public void close() {
            stores.forEach(KVStore::close);
            engines.forEach(Engine::close);
        }
    }

    /** A loopback echo server and a client socket. */
    @State(Scope.Benchmark)
    public static class Socket1 {
        @Param({"1024", "262144", "4194304", "16777216"})
        public int bytes;

        private ServerSocket server;
        private Socket client;
        private OutputStream out;
        private DataInputStream in;
        private byte[] data;
        private Thread echo;

        @Setup(Level.Trial)
        public void open() throws IOException {
            server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
            echo = new Thread(() -> {
                try (Socket s = server.accept(); InputStream i = s.getInputStream(); OutputStream o = s.getOutputStream()) {
                    byte[] buf = new byte[1 << 16];
                    for (int n; (n = i.read(buf)) > 0; ) {
                        o.write(buf, 0, n);
                    }
                } catch (IOException e) {
                    // the benchmark closed its end
                }
            }, "echo");
            echo.setDaemon(true);
            echo.start();
            client = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
            client.setTcpNoDelay(true);
            out = client.getOutputStream();
            in = new DataInputStream(client.getInputStream());
            data = new byte[bytes];
        }

        /** Writes from another thread, so that a buffer larger than the socket's does not deadlock. */
        void roundTrip() {
            CompletableFuture<Void> w = CompletableFuture.runAsync(() -> {
                try {
                    out.write(data);
                    out.flush();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            try {
                in.readFully(data);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            w.join();
        }

        @TearDown(Level.Trial)
        public void close() throws IOException {
            client.close();
            server.close();
        }
    }

    @Benchmark
    public void kvRound(Cluster c) {
        c.round();
    }

    @Benchmark
    public void socketBaseline(Socket1 s) {
        s.roundTrip();
    }
}
