package org.depengine.api;

import java.util.List;
import java.util.Objects;

/**
 * Describes one op by name and pushes it: {@code engine.op("fc1 forward").reads(x, w).writes(h)
 * .on(ctx).priority(2).run(fn)}. Each {@link #run} or {@link #runAsync} is one push through
 * {@link Engine#pushSync} or {@link Engine#pushAsync} with what was set, so it validates, orders and
 * throws exactly as those do; a builder may push again, and settings not given keep their defaults:
 * no variables, {@link Context#cpu()}, {@link FnProperty#NORMAL}, priority 0.
 *
 * <p>Not thread-safe: build and push from one thread (the ops it pushes may of course run anywhere).
 */
public final class OpBuilder {
    private final Engine engine;
    private final String name;
    private List<VarHandle> reads = List.of();
    private List<VarHandle> writes = List.of();
    private Context ctx = Context.cpu();
    private FnProperty prop = FnProperty.NORMAL;
    private int priority;

    OpBuilder(Engine engine, String name) {
        this.engine = engine;
        this.name = name;
    }

    /**
     * The variables the op reads (its {@code constVars}); replaces any given before.
     *
     * @param vars the variables it reads
     * @return this builder
     * @throws NullPointerException if the array or an element is null
     */
    public OpBuilder reads(VarHandle... vars) {
        this.reads = List.of(vars);
        return this;
    }

    /**
     * The variables the op reads (its {@code constVars}); replaces any given before.
     *
     * @param vars the variables it reads
     * @return this builder
     * @throws NullPointerException if the list or an element is null
     */
    public OpBuilder reads(List<VarHandle> vars) {
        this.reads = List.copyOf(vars);
        return this;
    }

    /**
     * The variables the op writes (its {@code mutableVars}); replaces any given before.
     *
     * @param vars the variables it writes
     * @return this builder
     * @throws NullPointerException if the array or an element is null
     */
    public OpBuilder writes(VarHandle... vars) {
        this.writes = List.of(vars);
        return this;
    }

    /**
     * The variables the op writes (its {@code mutableVars}); replaces any given before.
     *
     * @param vars the variables it writes
     * @return this builder
     * @throws NullPointerException if the list or an element is null
     */
    public OpBuilder writes(List<VarHandle> vars) {
        this.writes = List.copyOf(vars);
        return this;
    }

    /**
     * The device context the op runs on (default {@link Context#cpu()}).
     *
     * @param context the device context
     * @return this builder
     * @throws NullPointerException if {@code context} is null
     */
    public OpBuilder on(Context context) {
        this.ctx = Objects.requireNonNull(context, "context");
        return this;
    }

    /**
     * The op's property (default {@link FnProperty#NORMAL}).
     *
     * @param property the op's property
     * @return this builder
     * @throws NullPointerException if {@code property} is null
     */
    public OpBuilder property(FnProperty property) {
        this.prop = Objects.requireNonNull(property, "property");
        return this;
    }

    /**
     * The op's priority (default 0): higher runs first among ready ops of a priority pool.
     *
     * @param priority the op's priority: higher runs first among ready ops
     * @return this builder
     */
    public OpBuilder priority(int priority) {
        this.priority = priority;
        return this;
    }

    /**
     * Pushes the op with a synchronous function: it completes when {@code fn} returns.
     *
     * @param fn the op's function
     * @throws NullPointerException if {@code fn} is null
     * @throws IllegalArgumentException as {@link Engine#pushSync}
     * @throws IllegalStateException as {@link Engine#pushSync}
     */
    public void run(SyncFn fn) {
        engine.pushSync(fn, ctx, reads, writes, prop, priority, name);
    }

    /**
     * Pushes the op with an asynchronous function: it completes when it calls its callback.
     *
     * @param fn the op's function
     * @throws NullPointerException if {@code fn} is null
     * @throws IllegalArgumentException as {@link Engine#pushAsync}
     * @throws IllegalStateException as {@link Engine#pushAsync}
     */
    public void runAsync(AsyncFn fn) {
        engine.pushAsync(fn, ctx, reads, writes, prop, priority, name);
    }
}
