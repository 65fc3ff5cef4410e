package org.depengine.benchmarks;

import java.util.concurrent.TimeUnit;
import org.depengine.api.Context;
import org.depengine.benchmarks.contender.Contenders;
import org.depengine.benchmarks.opencl.OpenClPipeline;
import org.depengine.benchmarks.workload.OpList;
import org.depengine.benchmarks.workload.Workload;
import org.depengine.benchmarks.workload.Workloads;
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
 * A copy lane and a compute lane: per batch a copy-in ({@code COPY_TO_DEVICE}), a compute
 * ({@code NORMAL}) and a copy-out ({@code COPY_FROM_DEVICE}), double-buffered, so one batch's copies
 * can overlap another's compute. {@code device=cpu}: busy-spin stand-ins (25 µs per copy, 50 µs per
 * compute) on {@code cpu:0}; {@code device=opencl}: real OpenCL writes, kernels and reads on
 * {@code opencl:0} (run.sh adds it when an OpenCL driver is installed). The ideal is the longer lane
 * alone ({@code copyLane}, {@code computeLane} baselines); {@code serial} runs everything in order
 * with no overlap.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(2)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class ComputeCopyOverlap {

    /** What the device choice brings: the workload maker and, for OpenCL, the pipeline. */
    static final class DeviceChoice implements AutoCloseable {
        final Context ctx;
        final OpenClPipeline pipeline;

        DeviceChoice(String device) {
            switch (device) {
                case "cpu":
                    ctx = Context.cpu();
                    pipeline = null;
                    break;
                case "opencl":
                    ctx = Context.of("opencl", 0);
                    pipeline = OpenClPipeline.open(ctx);
                    break;
                default:
                    throw new IllegalArgumentException("device must be cpu or opencl, got '" + device + "'");
            }
        }

        Workload workload(OpList ops) {
            return pipeline == null ? Workload.cpu(ops) : pipeline.workload(ops);
        }

        void checkOutputs(String who) {
            String diff = pipeline == null ? null : pipeline.checkOutputs();
            if (diff != null) {
                throw new IllegalStateException(who + " produced a wrong device output: " + diff);
            }
        }

        @Override
        public void close() {
            if (pipeline != null) {
                pipeline.close();
            }
        }
    }

    static OpList pipelineOps() {
        return Workloads.copyCompute(Workloads.COPY_MICROS, Workloads.COMPUTE_MICROS);
    }

    /** The engines. */
    @State(Scope.Benchmark)
    public static class Engines extends TrialState {
        @Param({"cpu"})
        public String device;
        @Param({"naive", "pooled", "perdevice"})
        public String engine;
        private DeviceChoice dev;

        @Setup(Level.Trial)
        public void open() {
            dev = new DeviceChoice(device);
            trial = Trial.open(dev.workload(pipelineOps()), engine, dev.ctx, false);
        }

        @TearDown(Level.Iteration)
        public void checkOutputs() {
            dev.checkOutputs(engine);
        }

        @TearDown(Level.Trial)
        public void closeDevice() {
            trial.close(); // before the buffers go
            dev.close();
        }
    }

    /** Serial (no overlap), and each lane alone (the ideal is the longer one). */
    @State(Scope.Benchmark)
    public static class Baselines extends TrialState {
        @Param({"cpu"})
        public String device;
        @Param({"serial", "copyLane", "computeLane"})
        public String baseline;
        private DeviceChoice dev;

        @Setup(Level.Trial)
        public void open() {
            dev = new DeviceChoice(device);
            OpList all = pipelineOps();
            OpList ops;
            switch (baseline) {
                case "serial":
                    ops = all;
                    break;
                case "copyLane":
                    ops = all.subset("ComputeCopyOverlap(copy lane)", tag -> tag % Workloads.ROLES != Workloads.COMPUTE);
                    break;
                case "computeLane":
                    ops = all.subset("ComputeCopyOverlap(compute lane)", tag -> tag % Workloads.ROLES == Workloads.COMPUTE);
                    break;
                default:
                    throw new IllegalArgumentException("baseline must be serial, copyLane or computeLane, got '"
                            + baseline + "'");
            }
            Workload w = dev.workload(ops);
            trial = dev.pipeline == null ? Trial.open(w, "serial")
                    : new Trial(w, Contenders.serial(baseline, w, dev.pipeline.newStream()));
        }

        @TearDown(Level.Iteration)
        public void checkOutputs() {
            if (baseline.equals("serial")) { // a lane alone leaves incomplete outputs by design
                dev.checkOutputs(baseline);
            }
        }

        @TearDown(Level.Trial)
        public void closeDevice() {
            trial.close();
            dev.close();
        }
    }

    @Benchmark
    public void engine(Engines s) {
        s.trial.runOnce();
    }

    @Benchmark
    public void baseline(Baselines s) {
        s.trial.runOnce();
    }
}
