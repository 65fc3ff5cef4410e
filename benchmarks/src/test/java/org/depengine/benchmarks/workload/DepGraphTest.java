package org.depengine.benchmarks.workload;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.depengine.api.FnProperty;
import org.junit.jupiter.api.Test;

class DepGraphTest {
    private static int[] v(int... ids) {
        return ids;
    }

    @Test
    void readsWaitForTheLastWriterAndWritesForTheReadersSinceIt() {
        OpList ops = OpList.builder("t", 3)
                .op(v(), v(0))        // 0: writes a
                .op(v(0), v(1))       // 1: reads a, writes b
                .op(v(0), v(2))       // 2: reads a, writes c
                .op(v(), v(0))        // 3: writes a: after writer 0 and readers 1, 2
                .op(v(1, 2), v())     // 4: reads b, c: after 1 and 2
                .op(v(), v(1))        // 5: writes b: after writer 1 and reader 4
                .build();
        DepGraph g = DepGraph.of(ops);
        assertArrayEquals(v(), g.preds(0));
        assertArrayEquals(v(0), g.preds(1));
        assertArrayEquals(v(0), g.preds(2));
        assertArrayEquals(v(0, 1, 2), g.preds(3));
        assertArrayEquals(v(1, 2), g.preds(4));
        assertArrayEquals(v(1, 4), g.preds(5));
        assertArrayEquals(v(1, 2, 3), g.succs(0));
        assertArrayEquals(v(3, 5), g.sinks());
        assertEquals(9, g.edges());
        assertEquals(4, g.criticalPathOps()); // 0 -> 1 -> 4 -> 5
    }

    @Test
    void duplicateEdgesAreMerged() {
        OpList ops = OpList.builder("t", 2)
                .op(v(), v(0, 1))   // writes both
                .op(v(0), v(1))     // reads one, writes the other: one edge, not two
                .build();
        DepGraph g = DepGraph.of(ops);
        assertArrayEquals(v(0), g.preds(1));
        assertEquals(1, g.edges());
    }

    @Test
    void criticalPathWorkFollowsTheHeaviestPath() {
        OpList ops = OpList.builder("t", 3)
                .op(v(), v(0), FnProperty.NORMAL, 10, 0)
                .op(v(), v(1), FnProperty.NORMAL, 100, 0)
                .op(v(0, 1), v(2), FnProperty.NORMAL, 5, 0)
                .build();
        DepGraph g = DepGraph.of(ops);
        assertEquals(105, g.criticalPathWorkNanos());
        assertEquals(115, ops.totalWorkNanos());
    }

    @Test
    void wavefrontCriticalPathIsTheDiagonal() {
        DepGraph g = DepGraph.of(Workloads.wavefront(8));
        assertEquals(15, g.criticalPathOps());
        assertEquals(2 * 8 * 7, g.edges());
        assertArrayEquals(v(63), g.sinks());
    }
}
