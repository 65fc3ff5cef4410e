package org.depengine.examples;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.FnProperty;
import org.depengine.api.VarHandle;
import org.depengine.api.device.DeviceArray;
import org.depengine.api.device.Devices;
import org.depengine.api.device.primitive.Memcpy;
import org.depengine.kvstore.KVStore;
import org.depengine.kvstore.KVStoreSettings;
import org.depengine.kvstore.MembershipChange;
import org.depengine.kvstore.Updater;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * An elastic {@code dist_sync} job ({@code depengine.kvstore.elastic=true}) that goes on when a worker dies:
 * every worker pushes a small key and a key split over the workers, round after round, and pulls both; the
 * store keeps the sum. Every worker's push of round {@code r} is {@link #push} of its first rank, {@code r}
 * and the key, so what a pull gives tells which workers' pushes each round summed. Workers as in
 * {@link MultiDeviceTraining}: {@code --workers N} on loopback, or one per machine with {@code --members},
 * {@code --rank} and {@code --job}.
 *
 * <p>Rank 0 prints, per round, {@code ROUND r VIEW e WORKERS n small=… split=…} (each key's first element and
 * the sum of its elements), and each worker prints each change it moves to: {@code CHANGE epoch=e rank=r
 * workers=n left=[rank@millis …] joined=[rank@period …] moved=millis first=small:r,split:r} (the departed ranks
 * with the epoch milliseconds their loss was detected, the joiners' ranks with their first periods, the time
 * this worker moved, and each key's first round summed over the new view, in the loop's count of rounds), for a
 * harness to read; the survivors' values are the serial model of the elastic rule over that history. With
 * {@code --period N} a barrier ends a period every N rounds.
 */
@Command(name = "ElasticSteps", sortOptions = false,
        description = {"Pushes and pulls two keys round after round through an elastic dist_sync KVStore and prints",
                "each round's values and each membership change: kill a worker, and the others go on without it.",
                "--workers N starts N worker JVMs on loopback; on N machines run it once per machine with the same",
                "--members and --job and each machine's --rank."})
public final class ElasticSteps implements Callable<Integer> {
    private static final String STORE = "dist_sync";
    /** Who a joiner pushes as ({@link #push}): every worker of the job's start pushes as its first rank. */
    static final int JOINER = 100;
    /** The keys and their lengths: one summed whole by every worker, one split into parts over the workers. */
    static final Map<String, Integer> KEYS = keys();

    @Mixin
    private CommonOptions common = new CommonOptions();

    @Mixin
    private ClusterOptions cluster = new ClusterOptions();

    @Option(names = "--rounds", paramLabel = "N", description = "rounds (default 40)")
    private int rounds = 40;

    @Option(names = "--min-workers", paramLabel = "N", description = "the fewest workers the job goes on with (default 1)")
    private int minWorkers = 1;

    @Option(names = "--period", paramLabel = "N", description = "a barrier every N rounds, each ending a period "
            + "(default 0: one period, the barrier at the end)")
    private int period;

    @Option(names = "--round-ms", paramLabel = "MS", description = "each round takes at least MS milliseconds, a stand-in "
            + "for a training step's compute (default 0), so that a worker started to join finds the job still running")
    private int roundMs;

    @Option(names = "--join", paramLabel = "HOST:PORT", description = "with --members (the job's workers), --job and "
            + "--period: this process joins the running job as a new worker listening at HOST:PORT, with no --rank; it "
            + "pushes as worker " + JOINER + " from the first round of the period the job admits it at")
    private String join;

    /** The last view this worker moved to (written by the store's thread, read by the loop). */
    private volatile int epoch;

    private ElasticSteps() {
    }

    private static Map<String, Integer> keys() {
        Map<String, Integer> k = new LinkedHashMap<>(); // in this order on every worker, and in the printed lines
        k.put("small", 4);
        k.put("split", 96);
        return java.util.Collections.unmodifiableMap(k);
    }

    /** Entry point: see {@link Cli} for the exit status. */
    public static void main(String[] args) {
        WorkerProcesses.quietHazelcast();
        System.exit(Cli.run(new ElasticSteps(), args));
    }

    /** Worker {@code rank}'s push of element {@code i} of {@code key} in round {@code round}: small whole numbers, exact sums. */
    static float push(int rank, int round, String key, int i) {
        return ((rank + 1) * 7 + round * 3 + i + key.length()) % 11 - 5;
    }

    @Override
    public Integer call() throws Exception {
        int workers = cluster.check(STORE, join);
        Cli.inRange("--rounds", rounds, 1, 1_000_000);
        Cli.inRange("--period", period, 0, rounds);
        Cli.inRange("--round-ms", roundMs, 0, 60_000);
        if (cluster.joining()) {
            if (period == 0) {
                throw new IllegalArgumentException("--join needs --period N, the job's: a joiner starts at a period the "
                        + "job has not begun");
            }
            return run();
        }
        Cli.inRange("--min-workers", minWorkers, 1, workers);
        if (!cluster.startsWorkers(workers)) {
            return run();
        }
        return WorkerProcesses.runOnLoopback(ElasticSteps.class, cluster, workers, STORE, r -> {
            List<String> a = new ArrayList<>(List.of("--engine", common.engine, "--rounds", Integer.toString(rounds),
                    "--min-workers", Integer.toString(minWorkers), "--period", Integer.toString(period), "--round-ms",
                    Integer.toString(roundMs)));
            a.addAll(cluster.workerArgs(r));
            return a;
        }, this::run);
    }

    private int run() throws Exception {
        int first = cluster.joining() ? JOINER : cluster.rank();
        KVStoreSettings.Builder b = cluster.storeSettings().toBuilder().set("elastic", "true").set("splitFloats", "16");
        if (cluster.joining()) {
            b.set("join", "true"); // minWorkers and maxWorkers: the job's
        } else {
            b.set("minWorkers", Integer.toString(minWorkers));
        }
        KVStoreSettings settings = b.build();
        try (Engine engine = Engine.create(common.engine);
             KVStore kv = KVStore.open(engine, STORE, settings)) {
            kv.onMembershipChange(c -> System.out.println(text(c)));
            kv.setUpdater(Updater.sum());
            if (cluster.joining()) {
                System.out.printf(Locale.ROOT, "JOINED rank=%d workers=%d period=%d%n", kv.rank(), kv.numWorkers(),
                        kv.period());
            }
            Map<String, DeviceArray> arrays = new LinkedHashMap<>();
            for (Map.Entry<String, Integer> k : KEYS.entrySet()) {
                DeviceArray a = new DeviceArray(Devices.device(Context.cpu()).allocate(4L * k.getValue()),
                        engine.newVariable(k.getKey()));
                write(engine, a, new float[k.getValue()]);
                kv.init(k.getKey(), a);
                arrays.put(k.getKey(), a);
            }
            int start = firstRound(kv.period());
            for (int round = start; round <= rounds; round++) {
                long began = System.nanoTime();
                for (Map.Entry<String, DeviceArray> k : arrays.entrySet()) {
                    float[] g = new float[KEYS.get(k.getKey())];
                    for (int i = 0; i < g.length; i++) {
                        g[i] = push(first, round, k.getKey(), i);
                    }
                    write(engine, k.getValue(), g);
                    kv.push(k.getKey(), k.getValue());
                    kv.pull(k.getKey(), k.getValue());
                }
                StringBuilder line = new StringBuilder();
                for (Map.Entry<String, DeviceArray> k : arrays.entrySet()) {
                    float[] v = read(engine, k.getValue(), KEYS.get(k.getKey()));
                    double sum = 0;
                    for (float x : v) {
                        sum += x;
                    }
                    line.append(String.format(Locale.ROOT, " %s=%s,%s", k.getKey(), v[0], sum));
                }
                if (kv.rank() == 0) {
                    System.out.printf(Locale.ROOT, "ROUND %d VIEW %d WORKERS %d%s%n", round, epoch, kv.numWorkers(), line);
                }
                long left = roundMs - (System.nanoTime() - began) / 1_000_000;
                if (left > 0) {
                    Thread.sleep(left); // the step's compute, in this example's stead
                }
                if (period > 0 && round % period == 0 && round < rounds) {
                    kv.barrier(); // ends the period: round r is index (r - 1) % period + 1 of period (r - 1) / period
                }
            }
            if (start <= rounds) {
                kv.barrier(); // a joiner admitted after the last round's period has no period to end
            }
            if (kv.rank() == 0) {
                System.out.printf(Locale.ROOT, "done: %d rounds, %d workers at the end%n", rounds, kv.numWorkers());
            }
            return 0;
        }
    }

    /** The first round a worker whose store starts in {@code startPeriod} pushes (a joiner's is not 0). */
    private int firstRound(int startPeriod) {
        return period == 0 ? 1 : startPeriod * period + 1;
    }

    /** The number of a key's round {@code r} ({@link org.depengine.kvstore.spi.Rounds}) in the loop's count of rounds. */
    private long roundNumber(long r) {
        return (r >>> 32) * period + (r & 0xFFFF_FFFFL);
    }

    private String text(MembershipChange c) {
        epoch = c.epoch();
        StringBuilder left = new StringBuilder();
        for (MembershipChange.Departure d : c.left()) {
            left.append(left.length() == 0 ? "" : " ").append(d.rank()).append('@').append(d.detectedAt().toEpochMilli());
        }
        StringBuilder joined = new StringBuilder();
        for (MembershipChange.Arrival a : c.joined()) {
            joined.append(joined.length() == 0 ? "" : " ").append(a.rank()).append('@').append(a.fromPeriod());
        }
        StringBuilder firsts = new StringBuilder();
        c.firstRoundOf().forEach((k, r) -> firsts.append(firsts.length() == 0 ? "" : ",").append(k).append(':')
                .append(roundNumber(r)));
        return "CHANGE epoch=" + c.epoch() + " rank=" + c.rank() + " workers=" + c.numWorkers() + " left=[" + left
                + "] joined=[" + joined + "] moved=" + Instant.now().toEpochMilli() + " first=" + firsts;
    }

    private static Memcpy memcpy() {
        return Devices.device(Context.cpu()).requirePrimitive(Memcpy.class);
    }

    private static void write(Engine e, DeviceArray a, float[] data) {
        ByteBuffer b = ByteBuffer.allocateDirect(4 * data.length).order(ByteOrder.nativeOrder());
        b.asFloatBuffer().put(data);
        e.pushSync(rc -> memcpy().hostToDevice(rc.stream(), b.duplicate(), a.buffer(), a.offsetBytes()), Context.cpu(),
                List.of(), List.of(a.var()), FnProperty.COPY_TO_DEVICE, 0, "write " + a);
    }

    private static float[] read(Engine e, DeviceArray a, int floats) {
        ByteBuffer host = ByteBuffer.allocateDirect(4 * floats).order(ByteOrder.nativeOrder());
        VarHandle done = e.newVariable("read " + a);
        e.pushSync(rc -> memcpy().deviceToHost(rc.stream(), a.buffer(), a.offsetBytes(), host), Context.cpu(),
                List.of(a.var()), List.of(done), FnProperty.NORMAL, 0, "read " + a);
        e.waitForVar(done, Duration.ofSeconds(300));
        float[] got = new float[floats];
        host.asFloatBuffer().get(got);
        return got;
    }
}
