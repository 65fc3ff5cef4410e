package org.depengine.benchmarks.contender;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.depengine.api.Context;
import org.depengine.benchmarks.workload.OpList;
import org.depengine.benchmarks.workload.Workload;
import org.depengine.benchmarks.workload.Workloads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every contender gives the serial result on small lists, run twice, whole or in parts. */
class ContendersTest {
    /** A small random DAG (reads and writes of several variables). */
    private static OpList smallDag(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        int vars = 12;
        OpList.Builder b = OpList.builder("small", vars);
        for (int i = 0; i < 400; i++) {
            int w = rnd.nextInt(vars);
            int r1 = (w + 1 + rnd.nextInt(vars - 1)) % vars;
            b.op(rnd.nextBoolean() ? new int[] {r1} : new int[0], new int[] {w});
        }
        return b.build();
    }

    /** One round of FanOutFanIn's pattern, repeated 20 times (the benchmark's list is too long for Dexecutor). */
    private static OpList fanOut(int f) {
        OpList.Builder b = OpList.builder("fan", f + 2);
        int[] all = new int[f];
        for (int k = 0; k < f; k++) {
            all[k] = k + 1;
        }
        for (int r = 0; r < 20; r++) {
            b.op(new int[0], new int[] {0});
            for (int k = 0; k < f; k++) {
                b.op(new int[] {0}, new int[] {k + 1});
            }
            b.op(all, new int[] {f + 1});
        }
        return b.build();
    }

    @ParameterizedTest
    @ValueSource(strings = {"serial", "cf", "fjp", "dexecutor", "naive", "pooled", "perdevice", "naive+bulk3",
        "pooled+bulk16", "perdevice+bulk16", "naive+replay", "pooled+replay", "perdevice+replay"})
    void wholeRunsMatchTheSerialOracle(String name) {
        for (OpList ops : new OpList[] {smallDag(1), Workloads.wavefront(10), fanOut(5)}) {
            Workload w = Workload.cpu(ops);
            try (Contender c = Contenders.create(name, w, Context.cpu(), false)) {
                c.runOnce(ops.size());
                c.runOnce(ops.size());
                w.verify(name);
                c.verify();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"cf", "fjp", "pooled", "perdevice", "perdevice+bulk16"})
    void runsSubmittedInPartsMatchTheSerialOracle(String name) {
        OpList ops = smallDag(2);
        Workload w = Workload.cpu(ops);
        try (Contender c = Contenders.create(name, w, Context.cpu(), false)) {
            c.reset();
            c.submit(0, 150);
            c.submit(150, ops.size());
            c.awaitAll();
            w.verify(name);
        }
    }

    @Test
    void profiledEnginesStillMatch() {
        OpList ops = smallDag(3);
        Workload w = Workload.cpu(ops);
        try (Contender c = Contenders.create("perdevice", w, Context.cpu(), true)) {
            c.runOnce(ops.size());
            w.verify(c.name());
            assertTrue(c.name().endsWith("+profiler"), c.name());
        }
    }

    @Test
    void aRunInTheWrongOrderIsCaught() {
        OpList ops = smallDag(4);
        Workload w = Workload.cpu(ops);
        w.beforeRun();
        for (int i = ops.size() - 1; i >= 0; i--) {
            w.body().run(i, null);
        }
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> w.verify("reversed"));
        assertTrue(e.getMessage().contains("reversed") && e.getMessage().contains("wrong result"), e.getMessage());
    }

    @Test
    void anIncompleteRunIsCaughtByTheEngineVersions() {
        OpList ops = smallDag(5);
        Workload w = Workload.cpu(ops);
        try (Contender c = Contenders.create("pooled", w, Context.cpu(), false)) {
            c.runOnce(ops.size());
            c.reset(); // counts a second run that never pushes anything
            c.awaitAll();
            assertThrows(IllegalStateException.class, c::verify);
        }
    }

    @Test
    void aReplayingEngineRunsOnlyWholeLists() {
        OpList ops = smallDag(3);
        try (Contender c = Contenders.create("pooled+replay", Workload.cpu(ops), Context.cpu(), false)) {
            assertEquals("pooled+replay", c.name());
            c.reset();
            assertThrows(UnsupportedOperationException.class, () -> c.submit(0, 10));
        }
    }

    @Test
    void aReplayingEngineReplaysTheStepOfARepeatedListAsOftenAsItRepeats() {
        OpList ops = smallDag(11).repeat(20, 5);
        Workload w = Workload.cpu(ops);
        for (String engine : new String[] {"naive+replay", "perdevice+replay"}) {
            try (Contender c = Contenders.create(engine, w, Context.cpu(), false)) {
                c.runOnce(ops.size());
                w.verify(c.name());
                c.verify();
            }
        }
    }

    @Test
    void dexecutorRunsOnlyWholeLists() {
        OpList ops = smallDag(6);
        try (Contender c = Contenders.create("dexecutor", Workload.cpu(ops), Context.cpu(), false)) {
            c.reset();
            assertThrows(UnsupportedOperationException.class, () -> c.submit(0, 10));
        }
    }

    @Test
    void anUnknownEngineNamesTheChoices() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> Contenders.create("nosuch", Workload.cpu(smallDag(7)), Context.cpu(), false));
        assertTrue(e.getMessage().contains("nosuch"), e.getMessage());
    }

    @Test
    void aBadBulkSizeIsRefusedNamingTheForm() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Contenders.create("perdevice+bulk0", Workload.cpu(smallDag(7)), Context.cpu(), false));
        assertTrue(e.getMessage().contains("perdevice+bulk16"), e.getMessage());
    }
}
