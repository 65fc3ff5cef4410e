package org.depengine.examples;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.VarHandle;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * A random generator held as a variable: every op that draws from it writes it, so draws are
 * serialised in push order and the numbers each op gets are the same under every engine and thread
 * count — while the ops' other work still runs in parallel.
 *
 * <p>Usage: {@code RandomNumbers [--engine NAME] [--help]}.
 */
@Command(name = "RandomNumbers", sortOptions = false, description = {
    "16 ops draw from one seeded generator held as a variable; prints a checksum that is",
    "the same for every engine."})
public final class RandomNumbers implements Callable<Integer> {
    @Mixin
    private CommonOptions common = new CommonOptions();

    private RandomNumbers() {
    }

    /** Entry point: see {@link Cli} for the exit status. */
    public static void main(String[] args) {
        System.exit(Cli.run(new RandomNumbers(), args));
    }

    @Override
    public Integer call() {
        try (Engine engine = Engine.create(common.engine)) {
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
        return 0;
    }
}
