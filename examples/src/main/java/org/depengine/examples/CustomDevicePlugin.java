package org.depengine.examples;

import java.nio.ByteBuffer;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.FnProperty;
import org.depengine.api.RunContext;
import org.depengine.api.VarHandle;
import org.depengine.api.device.Devices;
import org.depengine.api.spi.EngineConfig;
import org.depengine.examples.customdevice.SimBuffer;
import org.depengine.examples.customdevice.SimDevice;
import org.depengine.examples.customdevice.SimDeviceProvider;
import org.depengine.examples.customdevice.SimSettings;
import org.depengine.examples.customdevice.SimStream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Pushes ops to {@code sim:0}, a device type that no depengine module knows: it comes from the plugin
 * jar built in {@code examples/custom-device} (module {@code org.depengine.examples.customdevice}),
 * found by the engine with {@link java.util.ServiceLoader} because the jar is on the module path.
 *
 * <p>Per batch: a host-to-device copy ({@link FnProperty#COPY_TO_DEVICE}), a kernel {@code y = 2x + 1}
 * ({@link FnProperty#NORMAL}) and a device-to-host copy ({@link FnProperty#COPY_FROM_DEVICE}) on
 * {@code sim:0}, then a CPU op that checks the result. Each device op's function only enqueues a
 * command on its stream and returns (launched); the plugin's lane thread runs the command later
 * (done), and only then does the engine release the op's readers. The program prints which engine
 * threads launched the ops, which plugin lanes ran them, and how long after launch they were done.
 *
 * <p>Usage: {@code CustomDevicePlugin [--engine NAME] [--batches N] [--latency-us N] [--help]}.
 */
@Command(name = "CustomDevicePlugin", sortOptions = false, description = {
    "Pushes copy / kernel / copy ops to sim:0, a simulated accelerator from the plugin jar",
    "examples/custom-device (found with ServiceLoader; the engine is unchanged), and shows that",
    "they ran on the plugin's own lane threads and completed asynchronously."})
public final class CustomDevicePlugin implements Callable<Integer> {
    private static final int FLOATS = 4096;

    @Mixin
    private CommonOptions common = new CommonOptions();
    @Option(names = "--batches", paramLabel = "N", description = "Batches, 1..10000 (default: ${DEFAULT-VALUE}).")
    private int batches = 8;
    @Option(names = "--latency-us", paramLabel = "N", description = "How long each device command takes, 0..1000000 "
            + "(default: the plugin's -D" + SimDeviceProvider.LATENCY_PROPERTY + ", else 1000).")
    private Integer latencyOption;

    private CustomDevicePlugin() {
    }

    /** Entry point: see {@link Cli} for the exit status. */
    public static void main(String[] args) {
        System.exit(Cli.run(new CustomDevicePlugin(), args));
    }

    @Override
    public Integer call() {
        Cli.inRange("--batches", batches, 1, 10_000);
        // --latency-us wins over the plugin's own -D setting, which wins over this example's 1000 us.
        int latencyMicros = latencyOption != null ? Cli.inRange("--latency-us", latencyOption, 0, 1_000_000)
                : System.getProperty(SimDeviceProvider.LATENCY_PROPERTY) != null
                        ? EngineConfig.system(SimSettings.LATENCY_MICROS) : 1000;
        // The plugin reads its settings when it is first probed, which is below.
        System.setProperty(SimDeviceProvider.LATENCY_PROPERTY, Integer.toString(latencyMicros));

        Context sim = Context.of(SimDeviceProvider.TYPE, 0);
        SimDevice device = (SimDevice) Devices.device(sim);
        System.out.println("device types found: " + Devices.types());
        System.out.println(sim + ": " + device.description());

        Map<String, AtomicInteger> opThreads = new ConcurrentHashMap<>();
        Map<String, AtomicInteger> lanes = new ConcurrentHashMap<>();
        long[] launchToDone = new long[batches * 3];
        boolean[] correct = new boolean[batches];
        String engineName;
        try (Engine engine = Engine.create(common.engine)) {
            engineName = engine.name();
            List<VarHandle> checked = new ArrayList<>();
            for (int b = 0; b < batches; b++) {
                int batch = b;
                ByteBuffer hostIn = device.allocateHost(FLOATS * Float.BYTES);
                ByteBuffer hostOut = device.allocateHost(FLOATS * Float.BYTES);
                SimBuffer onDevice = device.allocate(FLOATS * Float.BYTES);
                VarHandle in = engine.newVariable("in" + b);
                VarHandle dev = engine.newVariable("dev" + b);
                VarHandle out = engine.newVariable("out" + b);
                VarHandle ok = engine.newVariable("checked" + b);
                checked.add(ok);

                engine.pushSync(ctx -> {
                    FloatBuffer f = hostIn.asFloatBuffer();
                    for (int i = 0; i < FLOATS; i++) {
                        f.put(i, batch * FLOATS + i);
                    }
                }, Context.cpu(), List.of(), List.of(in), FnProperty.NORMAL, 0, "fill");
                engine.pushSync(ctx -> launch(ctx, "h2d", () -> onDevice.data().put(0, hostIn, 0, hostIn.capacity()),
                                batch * 3, launchToDone, opThreads, lanes),
                        sim, List.of(in), List.of(dev), FnProperty.COPY_TO_DEVICE, 0, "h2d");
                engine.pushSync(ctx -> launch(ctx, "kernel", () -> {
                    FloatBuffer x = onDevice.data().asFloatBuffer();
                    for (int i = 0; i < FLOATS; i++) {
                        x.put(i, 2 * x.get(i) + 1);
                    }
                }, batch * 3 + 1, launchToDone, opThreads, lanes), sim, List.of(), List.of(dev), FnProperty.NORMAL, 0, "kernel");
                engine.pushSync(ctx -> launch(ctx, "d2h", () -> hostOut.put(0, onDevice.data(), 0, hostOut.capacity()),
                                batch * 3 + 2, launchToDone, opThreads, lanes),
                        sim, List.of(dev), List.of(out), FnProperty.COPY_FROM_DEVICE, 0, "d2h");
                engine.pushSync(ctx -> {
                    // Runs only once the device-to-host copy is done on its lane, not merely launched.
                    FloatBuffer y = hostOut.asFloatBuffer();
                    boolean good = true;
                    for (int i = 0; i < FLOATS; i++) {
                        good &= y.get(i) == 2f * (batch * FLOATS + i) + 1;
                    }
                    correct[batch] = good;
                }, Context.cpu(), List.of(out), List.of(ok), FnProperty.NORMAL, 0, "check");
                engine.deleteVariable(ctx -> onDevice.close(), Context.cpu(), dev);
            }
            for (VarHandle v : checked) {
                engine.waitForVar(v);
            }
            engine.waitForAll();
        }

        int good = 0;
        for (boolean c : correct) {
            good += c ? 1 : 0;
        }
        long minLag = Long.MAX_VALUE;
        long maxLag = 0;
        for (long lag : launchToDone) {
            minLag = Math.min(minLag, lag);
            maxLag = Math.max(maxLag, lag);
        }
        System.out.println("engine: " + engineName);
        System.out.printf("ops pushed to %s: %d; device commands run by the plugin: %d%n", sim, batches * 3,
                device.commandsRun());
        System.out.println("op functions (the launches) ran on: " + counts(opThreads));
        System.out.println("device work ran on the plugin's lanes: " + counts(lanes));
        System.out.printf("each op was launched when its function returned and done %.2f to %.2f ms later, on its lane%n",
                minLag / 1e6, maxLag / 1e6);
        System.out.printf("results: %d of %d batches correct (y = 2x + 1, checked on cpu:0 after each copy back)%n",
                good, batches);
        return 0;
    }

    /**
     * The body of every device op: enqueue {@code work} on the op's stream and return. The lane runs it
     * later; the time from the launch to the end of the command is kept in {@code lag[slot]}.
     */
    private static void launch(RunContext ctx, String what, Runnable work, int slot, long[] lag,
                               Map<String, AtomicInteger> opThreads, Map<String, AtomicInteger> lanes) {
        SimStream stream = (SimStream) ctx.stream();
        opThreads.computeIfAbsent(Thread.currentThread().getName(), k -> new AtomicInteger()).incrementAndGet();
        long launchedAt = System.nanoTime();
        stream.enqueue(what, () -> {
            work.run();
            lanes.computeIfAbsent(Thread.currentThread().getName() + " (" + stream.name() + ")", k -> new AtomicInteger())
                    .incrementAndGet();
        });
        // A marker after the command: it runs on the lane once the command, latency included, is over.
        stream.onComplete(() -> lag[slot] = System.nanoTime() - launchedAt);
    }

    private static String counts(Map<String, AtomicInteger> m) {
        StringBuilder sb = new StringBuilder();
        new TreeMap<>(m).forEach((k, v) -> sb.append(sb.length() == 0 ? "" : ", ").append(k).append(" x").append(v.get()));
        return sb.toString();
    }
}
