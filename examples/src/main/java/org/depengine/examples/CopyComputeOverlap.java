package org.depengine.examples;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.FloatBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.FnProperty;
import org.depengine.api.VarHandle;
import org.depengine.api.device.Availability;
import org.depengine.api.device.Device;
import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Devices;
import org.depengine.api.device.primitive.Activation;
import org.depengine.api.device.primitive.Elementwise;
import org.depengine.api.device.primitive.Memcpy;
import org.depengine.profiler.Profiler;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Many batches through a device, each copied in ({@link FnProperty#COPY_TO_DEVICE}), computed on
 * ({@link FnProperty#NORMAL}) and copied out ({@link FnProperty#COPY_FROM_DEVICE}). The three kinds of
 * op run on separate streams, so with a few batch buffers in flight the engine copies one batch in
 * while it computes on another and copies a third out. The program measures how busy each lane was
 * and how much of the time that overlapping could save it did save, checks every result, and writes
 * a trace.
 *
 * <p>The default device is {@code opencl:0}: a real asynchronous device with its own command queues
 * (PoCL on a machine without a GPU). Any device that offers the Memcpy, Elementwise and Activation
 * primitives works ({@code cuda:0}, {@code cpu:0}).
 *
 * <p>Usage: {@code CopyComputeOverlap [--engine NAME] [--device opencl:0] [--batches N]
 * [--floats N] [--passes N] [--slots N] [--trace FILE.json] [--help]}.
 */
@Command(name = "CopyComputeOverlap", sortOptions = false, description = {
    "Sends batches through a device: copy in, passes of x = -x then ReLU, copy out, with a few",
    "batches in flight. Prints how busy each lane was and the overlap achieved, checks every result,",
    "and writes a trace."})
public final class CopyComputeOverlap implements Callable<Integer> {
    private static final String H2D = "copy in";
    private static final String COMPUTE = "compute";
    private static final String D2H = "copy out";

    @Mixin
    private CommonOptions common = new CommonOptions();
    @Option(names = "--device", paramLabel = "TYPE:ID",
            description = "The device (default: opencl:0, or cpu:0 where OpenCL is unavailable).")
    private String deviceName;
    @Option(names = "--batches", paramLabel = "N", description = "Batches to send, 1..1000000 (default: ${DEFAULT-VALUE}).")
    private int batches = 48;
    @Option(names = "--floats", paramLabel = "N", description = "Floats per batch (default: ${DEFAULT-VALUE} = 1 MiB).")
    private int floats = 1 << 18;
    @Option(names = "--passes", paramLabel = "N", description = "Passes of x = -x per batch, 0..10000 (default: ${DEFAULT-VALUE}).")
    private int passes = 8;
    @Option(names = "--slots", paramLabel = "N", description = "Batches in flight, 1..64 (default: ${DEFAULT-VALUE}).")
    private int slots = 3;
    @Option(names = "--trace", paramLabel = "FILE.json",
            description = "Where to write the trace (default: CopyComputeOverlap.trace.json in the temporary directory).")
    private Path trace = Path.of(System.getProperty("java.io.tmpdir"), "CopyComputeOverlap.trace.json");

    private CopyComputeOverlap() {
    }

    /** Entry point: see {@link Cli} for the exit status. */
    public static void main(String[] args) {
        System.exit(Cli.run(new CopyComputeOverlap(), args));
    }

    @Override
    public Integer call() throws IOException {
        Cli.inRange("--batches", batches, 1, 1_000_000);
        Cli.inRange("--floats", floats, 1, 1 << 28);
        Cli.inRange("--passes", passes, 0, 10_000);
        Cli.inRange("--slots", slots, 1, 64);
        Context ctx = chooseDevice(deviceName);

        Device device = Devices.device(ctx);
        Memcpy memcpy = device.requirePrimitive(Memcpy.class);
        Elementwise elementwise = device.requirePrimitive(Elementwise.class);
        Activation activation = device.requirePrimitive(Activation.class);

        int correct;
        LaneRecorder.Busy busy;
        long wall;
        try (Engine engine = Engine.create(common.engine)) {
            System.out.printf("device %s (%s); engine %s%n", ctx, device.description(), engine.name());
            System.out.printf("%d batches of %d KiB, %d in flight: %s (COPY_TO_DEVICE), %s: %d passes of x = -x then ReLU "
                    + "(NORMAL), %s (COPY_FROM_DEVICE)%n", batches, floats * 4 / 1024, slots, H2D, COMPUTE, passes, D2H);
            LaneRecorder lanes = new LaneRecorder(Set.of(H2D, COMPUTE, D2H));
            engine.addListener(lanes);
            Profiler profiler = Profiler.Builder.fromSystemProperties().mode(Profiler.Mode.ALL).build().start(engine);

            // Producing and checking batches is host work: on a CPU id of its own, not queued behind the lanes.
            Context host = MultiDeviceTraining.hostContext(List.of(ctx));
            List<Slot> ring = new ArrayList<>();
            for (int s = 0; s < slots; s++) {
                ring.add(new Slot(engine, device, floats, s));
            }
            int[] good = {0};
            VarHandle results = engine.newVariable("results");
            long t0 = System.nanoTime();
            for (int b = 0; b < batches; b++) {
                Slot s = ring.get(b % slots);
                int batch = b;
                engine.op("produce").writes(s.in).on(host).run(rc -> fill(s.hostIn.asFloatBuffer(), batch));
                engine.op(H2D).reads(s.in).writes(s.dev).on(ctx).property(FnProperty.COPY_TO_DEVICE)
                        .run(rc -> memcpy.hostToDevice(rc.stream(), s.hostIn, s.onDevice, 0));
                engine.op(COMPUTE).writes(s.dev).on(ctx).run(rc -> {
                    for (int p = 0; p < passes; p++) {
                        elementwise.scale(rc.stream(), floats, -1f, s.onDevice, s.onDevice);
                    }
                    activation.relu(rc.stream(), floats, s.onDevice, s.onDevice);
                });
                engine.op(D2H).reads(s.dev).writes(s.out).on(ctx).property(FnProperty.COPY_FROM_DEVICE)
                        .run(rc -> memcpy.deviceToHost(rc.stream(), s.onDevice, 0, s.hostOut));
                engine.op("check").reads(s.out).writes(results).on(host)
                        .run(rc -> good[0] += check(s.hostOut.asFloatBuffer(), batch, passes) ? 1 : 0);
            }
            engine.waitForAll();
            wall = System.nanoTime() - t0;
            correct = good[0];
            profiler.stop();
            profiler.dump(trace);
            busy = lanes.busy();
        }

        System.out.printf(Locale.ROOT, "lane busy: %s %.1f ms, %s %.1f ms, %s %.1f ms; sum %.1f ms%n",
                H2D, ms(busy.perLane().getOrDefault(H2D, 0L)), COMPUTE, ms(busy.perLane().getOrDefault(COMPUTE, 0L)),
                D2H, ms(busy.perLane().getOrDefault(D2H, 0L)), ms(busy.sum()));
        System.out.printf(Locale.ROOT, "device busy (any lane): %.1f ms; wall, first push to last result: %.1f ms%n",
                ms(busy.anyLane()), ms(wall));
        System.out.printf(Locale.ROOT, "overlap: %.1f ms saved of the %.1f ms that overlapping could save (%.0f%%)%n",
                ms(busy.sum() - busy.anyLane()), ms(busy.sum() - busy.max()), 100 * busy.overlap());
        System.out.printf("results: %d of %d batches correct%n", correct, batches);
        System.out.printf("trace: %s (open in https://ui.perfetto.dev or chrome://tracing)%n", trace.toAbsolutePath());
        return 0;
    }

    /** One batch buffer in flight: host input, device memory, host output, each with its variable. */
    private static final class Slot {
        final ByteBuffer hostIn;
        final ByteBuffer hostOut;
        final DeviceBuffer onDevice;
        final VarHandle in;
        final VarHandle dev;
        final VarHandle out;

        Slot(Engine engine, Device device, int floats, int number) {
            hostIn = device.allocateHost(4 * floats);
            hostOut = device.allocateHost(4 * floats);
            onDevice = device.allocate(4L * floats);
            in = engine.newVariable("host in #" + number);
            dev = engine.newVariable("device #" + number);
            out = engine.newVariable("host out #" + number);
        }
    }

    /** The device named, or opencl:0 where it is available, else cpu:0 (said so). */
    private static Context chooseDevice(String named) {
        if (named != null) {
            return Context.parse(named);
        }
        Availability a = Devices.provider("opencl").probe();
        if (a.available()) {
            return Context.of("opencl", 0);
        }
        System.out.println("opencl:0 is unavailable here (" + a.reason() + "); using cpu:0. Choose with --device.");
        return Context.cpu();
    }

    private static void fill(FloatBuffer x, int batch) {
        for (int i = 0; i < x.limit(); i++) {
            x.put(i, value(batch, i));
        }
    }

    /** An exact value (a small integer over 8), positive or negative, so that every result is checkable bit for bit. */
    private static float value(int batch, int i) {
        return (((i * 31 + batch * 7) & 255) - 128) / 8f;
    }

    private static boolean check(FloatBuffer y, int batch, int passes) {
        for (int i = 0; i < y.limit(); i++) {
            float x = passes % 2 == 0 ? value(batch, i) : -value(batch, i);
            if (y.get(i) != Math.max(x, 0f)) {
                return false;
            }
        }
        return true;
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }
}
