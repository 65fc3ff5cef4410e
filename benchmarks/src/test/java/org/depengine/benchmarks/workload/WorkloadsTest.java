package org.depengine.benchmarks.workload;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.depengine.api.FnProperty;
import org.junit.jupiter.api.Test;

class WorkloadsTest {
    @Test
    void mxnetShapeHasMxnetsReadAndWriteCounts() {
        OpList ops = Workloads.randomDag("mxnet");
        assertEquals(10_000, ops.size());
        assertEquals(100, ops.varCount());
        int minReads = Integer.MAX_VALUE;
        int maxReads = 0;
        for (int i = 0; i < ops.size(); i++) {
            assertEquals(1, ops.writes(i).length);
            minReads = Math.min(minReads, ops.reads(i).length);
            maxReads = Math.max(maxReads, ops.reads(i).length);
        }
        assertEquals(2, minReads);
        assertEquals(19, maxReads);
    }

    @Test
    void wideShapeAndTheSameListEveryTime() {
        OpList a = Workloads.randomDag("wide");
        OpList b = Workloads.randomDag("wide");
        assertEquals(1000, a.varCount());
        for (int i = 0; i < a.size(); i++) {
            assertTrue(a.reads(i).length <= 3);
            assertEquals(java.util.Arrays.toString(a.reads(i)), java.util.Arrays.toString(b.reads(i)));
            assertEquals(a.writes(i)[0], b.writes(i)[0]);
        }
    }

    @Test
    void fanOutFanInAndReadHeavyRepeatTheirPattern() {
        OpList fan = Workloads.fanOutFanIn(16);
        assertEquals(0, fan.size() % 18);
        DepGraph g = DepGraph.of(fan);
        assertEquals(16, g.preds(17).length); // the joiner waits for every reader
        OpList reads = Workloads.readHeavy(8);
        assertEquals(0, reads.size() % 9);
        assertEquals(9, DepGraph.of(reads).preds(9).length); // the next write waits for the 8 readers and the last write
    }

    @Test
    void copyComputeAlternatesLanesOnTwoSlots() {
        OpList ops = Workloads.copyCompute(25, 50);
        assertEquals(3 * Workloads.COPY_COMPUTE_BATCHES, ops.size());
        assertEquals(FnProperty.COPY_TO_DEVICE, ops.prop(0));
        assertEquals(FnProperty.NORMAL, ops.prop(1));
        assertEquals(FnProperty.COPY_FROM_DEVICE, ops.prop(2));
        assertEquals(Workloads.COPY_COMPUTE_BATCHES * 100_000L, ops.totalWorkNanos());
        OpList copies = ops.subset("copies", tag -> tag % Workloads.ROLES != Workloads.COMPUTE);
        assertEquals(2 * Workloads.COPY_COMPUTE_BATCHES, copies.size());
    }

    @Test
    void forBenchmarkRebuildsTheBenchmarksLists() {
        assertEquals(Workloads.cpuParallel(10).size(), Workloads.forBenchmark("CpuParallel", Map.of("grainMicros", "10")).size());
        assertEquals(1000, Workloads.cpuParallel(10).size());
        assertNull(Workloads.forBenchmark("PushCost", Map.of()));
        assertEquals(Workloads.INDEPENDENT_OPS, Workloads.forBenchmark("Independent", Map.of()).size());
        assertEquals(Workloads.INDEPENDENT_VARS, Workloads.independent().varCount());
        OpList metg = Workloads.forBenchmark("Metg", Map.of("grainNanos", "500"));
        assertEquals(Workloads.METG_TOTAL_NANOS / 500, metg.size());
        assertEquals(Workloads.METG_TOTAL_NANOS, metg.totalWorkNanos());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Workloads.forBenchmark("FanOutFanIn", Map.of()));
        assertTrue(e.getMessage().contains("fanOut"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Workloads.randomDag("tall"));
        assertEquals(Workloads.linearChain().size(), Workloads.forBenchmark("Replay", Map.of("shape", "chain")).size());
        assertEquals(Workloads.INDEPENDENT_OPS, Workloads.forBenchmark("Replay", Map.of("shape", "independent")).size());
        assertEquals(Workloads.randomDag("wide").size(), Workloads.forBenchmark("Replay", Map.of("shape", "wide")).size());
        OpList step = Workloads.forBenchmark("Replay", Map.of("shape", "wide", "graph", "1024"));
        assertEquals(1024, step.period());
        assertEquals(1024 * (Workloads.RANDOM_DAG_OPS / 1024), step.size());
        assertThrows(IllegalArgumentException.class, () -> Workloads.replayed("chain", "tall"));
    }

    @Test
    void aRepeatedListRepeatsItsStepOpsAndEffects() {
        OpList dag = Workloads.randomDag("mxnet");
        OpList twice = dag.repeat(100, 2);
        assertEquals(200, twice.size());
        assertEquals(100, twice.period());
        for (int i = 0; i < 100; i++) {
            assertArrayEquals(dag.reads(i), twice.reads(i + 100));
            assertArrayEquals(dag.writes(i), twice.writes(i + 100));
            assertEquals(i, twice.identity(i + 100));
        }
        // Running the step twice, op by op, is the serial run of the repeated list.
        Effects e = new Effects(twice);
        for (int r = 0; r < 2; r++) {
            for (int i = 0; i < 100; i++) {
                e.apply(i);
            }
        }
        assertArrayEquals(Effects.oracle(twice), e.snapshot());
        assertThrows(IllegalArgumentException.class, () -> dag.repeat(0, 2));
        assertThrows(IllegalArgumentException.class, () -> dag.repeat(100, 0));
    }

    @Test
    void badOpsAreRefusedWithTheReason() {
        OpList.Builder b = OpList.builder("t", 2);
        IllegalArgumentException both = assertThrows(IllegalArgumentException.class,
                () -> b.op(new int[] {0}, new int[] {0}));
        assertTrue(both.getMessage().contains("both read and written"), both.getMessage());
        IllegalArgumentException range = assertThrows(IllegalArgumentException.class,
                () -> b.op(new int[] {2}, new int[0]));
        assertTrue(range.getMessage().contains("out of range"), range.getMessage());
    }
}
