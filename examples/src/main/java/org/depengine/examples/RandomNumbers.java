package org.depengine.examples;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.VarHandle;

/**
 * A random generator held as a variable: every op that draws from it writes it, so draws are
 * serialised in push order and the numbers each op gets are the same under every engine and thread
 * count — while the ops' other work still runs in parallel.
 *
 * <p>Usage: {@code RandomNumbers [--engine naive|pooled|perdevice] [--help]}.
 */
public final class RandomNumbers {
    private RandomNumbers() {
    }

    /** Entry point. */
    public static void main(String[] args) {
        Args parsed = Args.parse(args);
        if (parsed.help) {
            System.out.println("usage: RandomNumbers [--engine naive|pooled|perdevice]\n"
                    + "16 ops draw from one seeded generator held as a variable; prints a checksum that is\n"
                    + "the same for every engine.");
            return;
        }
        try (Engine engine = Engine.create(parsed.engine)) {
            SplittableRandom rng = new SplittableRandom(2024);
            VarHandle rngVar = engine.newVariable("rng");
            int ops = 16;
            long[] drawn = new long[ops];
            List<VarHandle> outs = new ArrayList<>();
            for (int i = 0; i < ops; i++) {
                int k = i;
                VarHandle out = engine.newVariable("out" + i);
                outs.add(out);
                engine.pushSync(ctx -> drawn[k] = rng.nextLong(1_000_000), Context.cpu(i % 2), List.of(), List.of(rngVar, out));
            }
            engine.waitForAll();
            long checksum = 0;
            for (int i = 0; i < ops; i++) {
                checksum = checksum * 31 + drawn[i];
            }
            System.out.println("engine: " + engine.name());
            System.out.println("first draws: " + drawn[0] + ", " + drawn[1] + ", " + drawn[2]);
            System.out.println("checksum: " + checksum);
        }
    }
}
