package org.depengine.api;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Describes one op by name and pushes it: {@code engine.op("fc1 forward").reads(x, w).writes(h)
 * .on(ctx).priority(2).run(fn)}. Each {@link #run} or {@link #runAsync} is one push through
 * {@link Engine#pushSync} or {@link Engine#pushAsync} with what was set, so it validates, orders and
 * throws exactly as those do; a builder may push again, and settings not given keep their defaults:
 * no variables, {@link Context#cpu()}, {@link FnProperty#NORMAL}, priority 0, no arguments.
 *
 * <p>Arguments ({@link #arg(String, long)} and its overloads) describe one run of the op without
 * changing its name: {@code engine.op("shuffle").arg("epoch", e).writes(data).run(fn)}. They do not
 * affect how the op runs; listeners see them as {@link org.depengine.api.listen.OpInfo#args()}, and the
 * profiler shows them in its trace and timeline while it groups its statistics by name. An op pushed
 * without arguments costs exactly what the plain {@link Engine#pushSync} overload costs.
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
    private Map<String, Object> args = Map.of();

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
     * Adds an integer argument, e.g. {@code arg("epoch", 3)}; arguments keep the order they were
     * added in.
     *
     * @param key the argument's name: not blank, not given before to this builder
     * @param value its value
     * @return this builder
     * @throws NullPointerException if {@code key} is null
     * @throws IllegalArgumentException if {@code key} is blank or was already added to this builder
     */
    public OpBuilder arg(String key, long value) {
        return put(key, value);
    }

    /**
     * Adds a floating-point argument, e.g. {@code arg("lr", 0.01)}.
     *
     * @param key the argument's name: not blank, not given before to this builder
     * @param value its value
     * @return this builder
     * @throws NullPointerException if {@code key} is null
     * @throws IllegalArgumentException if {@code key} is blank or was already added to this builder
     */
    public OpBuilder arg(String key, double value) {
        return put(key, value);
    }

    /**
     * Adds a boolean argument.
     *
     * @param key the argument's name: not blank, not given before to this builder
     * @param value its value
     * @return this builder
     * @throws NullPointerException if {@code key} is null
     * @throws IllegalArgumentException if {@code key} is blank or was already added to this builder
     */
    public OpBuilder arg(String key, boolean value) {
        return put(key, value);
    }

    /**
     * Adds a text argument, e.g. {@code arg("phase", "warm-up")}.
     *
     * @param key the argument's name: not blank, not given before to this builder
     * @param value its value
     * @return this builder
     * @throws NullPointerException if {@code key} or {@code value} is null
     * @throws IllegalArgumentException if {@code key} is blank or was already added to this builder
     */
    public OpBuilder arg(String key, String value) {
        Objects.requireNonNull(value, () -> "value of op argument '" + key + "' is null; give a text or use another arg overload");
        return put(key, value);
    }

    private OpBuilder put(String key, Object value) {
        Objects.requireNonNull(key, "op argument key is null; give every argument a name");
        if (key.isBlank()) {
            throw new IllegalArgumentException("op argument key is blank; give every argument a name");
        }
        if (args.containsKey(key)) {
            throw new IllegalArgumentException("op argument '" + key + "' was already given (value " + args.get(key)
                    + ") to the builder of op '" + name + "'; give each key once (use a new builder per push to change it)");
        }
        // A fresh immutable map per arg call, so a push hands the engine this map as it is (no copy per push).
        Map<String, Object> m = new LinkedHashMap<>(args);
        m.put(key, value);
        args = Collections.unmodifiableMap(m);
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
        if (args.isEmpty()) {
            engine.pushSync(fn, ctx, reads, writes, prop, priority, name);
        } else {
            engine.pushSync(fn, ctx, reads, writes, prop, priority, name, args);
        }
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
        if (args.isEmpty()) {
            engine.pushAsync(fn, ctx, reads, writes, prop, priority, name);
        } else {
            engine.pushAsync(fn, ctx, reads, writes, prop, priority, name, args);
        }
    }
}
