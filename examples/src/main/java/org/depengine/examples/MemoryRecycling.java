package org.depengine.examples;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.FnProperty;
import org.depengine.api.VarHandle;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * A buffer read by two ops and freed by {@code deleteVariable} only after both: the deletion is
 * pushed right after the reads, and the engine holds it back until they are done.
 *
 * <p>Usage: {@code MemoryRecycling [--engine NAME] [--help]}.
 */
@Command(name = "MemoryRecycling", sortOptions = false, description = {
    "Two ops read a buffer; deleteVariable frees it, and runs only after both reads."})
public final class MemoryRecycling implements Callable<Integer> {
    @Mixin
    private CommonOptions common = new CommonOptions();

    private MemoryRecycling() {
    }

    /** Entry point: see {@link Cli} for the exit status. */
    public static void main(String[] args) {
        System.exit(Cli.run(new MemoryRecycling(), args));
    }

    @Override
    public Integer call() {
        try (Engine engine = Engine.create(common.engine)) {
            ByteBuffer[] buffer = {ByteBuffer.allocateDirect(1 << 20)};
            VarHandle buf = engine.newVariable("buffer");
            VarHandle sum1 = engine.newVariable("sum1");
            VarHandle sum2 = engine.newVariable("sum2");
            AtomicInteger readsDone = new AtomicInteger();
            engine.pushSync(ctx -> {
                for (int i = 0; i < buffer[0].capacity(); i++) {
                    buffer[0].put(i, (byte) i);
                }
            }, Context.cpu(), List.of(), List.of(buf), FnProperty.NORMAL, 0, "fill");
            long[] sums = new long[2];
            for (int k = 0; k < 2; k++) {
                int which = k;
                engine.pushSync(ctx -> {
                    long s = 0;
                    for (int i = which; i < buffer[0].capacity(); i += 2) {
                        s += buffer[0].get(i);
                    }
                    sums[which] = s;
                    System.out.printf("read %d done (sum %d)%n", which + 1, s);
                    readsDone.incrementAndGet();
                }, Context.cpu(), List.of(buf), List.of(which == 0 ? sum1 : sum2), FnProperty.NORMAL, 0, "read");
            }
            engine.deleteVariable(ctx -> {
                System.out.printf("freeing the buffer after %d of 2 reads%n", readsDone.get());
                buffer[0] = null; // the memory is reclaimed: nothing can use it any more
            }, Context.cpu(), buf);
            engine.waitForAll();
            System.out.printf("sums: %d and %d%n", sums[0], sums[1]);
        }
        return 0;
    }
}
