package org.depengine.profiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringWriter;
import java.util.concurrent.CountDownLatch;
import org.depengine.api.VarHandle;
import org.depengine.api.listen.OpInfo;
import org.depengine.profiler.Fakes.FakeOp;
import org.junit.jupiter.api.Test;

/** 10 M recorded ops: the rings stay at their capacity and count what they overwrote. */
class BoundedMemoryTest {
    private static final int OPS = 10_000_000;
    private static final int CAPACITY = 1 << 12;
    /** READY, STARTED, FINISHED, INFO and one VARS record per op. */
    private static final int RECORDS_PER_OP = 5;

    @Test
    void tenMillionOpsKeepMemoryBoundedAndCountDrops() throws Exception {
        Profiler p = Profiler.builder().ringCapacity(CAPACITY).jfr(false).build();
        p.start(new Fakes.ListenerSink("e").engine);
        System.gc();
        long before = usedHeap();
        long start = System.nanoTime();
        int threads = 2;
        CountDownLatch done = new CountDownLatch(threads);
        for (int k = 0; k < threads; k++) {
            final int base = k;
            Thread t = new Thread(() -> {
                VarHandle a = Fakes.var("a" + base);
                VarHandle b = Fakes.var("b" + base);
                FakeOp op = new FakeOp(0, "op" + base).reads(a).writes(b); // one object, reused: no per-op garbage of the test's own
                op.outcome = OpInfo.Outcome.DONE;
                for (long i = base; i < OPS; i += threads) {
                    op.id = i;
                    long t0 = i * 10;
                    p.listener().ready(op, t0);
                    p.listener().started(op, t0 + 1);
                    p.listener().finished(op, t0 + 5);
                }
                done.countDown();
            }, "recorder-" + k);
            t.start();
        }
        done.await();
        long elapsedMs = (System.nanoTime() - start) / 1_000_000;
        System.gc();
        long after = usedHeap();

        long expectedDropped = (long) threads * ((long) OPS / threads * RECORDS_PER_OP - CAPACITY);
        assertEquals(expectedDropped, p.droppedRecords());
        // two rings of 4096 records * 32 bytes are 256 KiB; allow generous slack for JIT and GC noise
        assertTrue(after - before < 32L << 20, "heap grew by " + ((after - before) >> 20) + " MiB");
        StringWriter sw = new StringWriter();
        p.writeTrace(sw);
        TraceView t = new TraceView(sw.toString());
        assertEquals((double) expectedDropped, t.otherData().get("droppedRecords"));
        int ops = t.hostOps().size();
        assertTrue(ops > 0 && ops <= threads * CAPACITY / RECORDS_PER_OP + 2, "ops kept: " + ops);
        AggregateStats s = p.stats();
        assertEquals(ops, s.opCount());
        assertEquals(expectedDropped, s.droppedRecords());
        p.stop();
        System.out.println("10M ops recorded in " + elapsedMs + " ms; heap delta " + ((after - before) >> 10) + " KiB");
    }

    private static long usedHeap() {
        Runtime rt = Runtime.getRuntime();
        return rt.totalMemory() - rt.freeMemory();
    }
}
