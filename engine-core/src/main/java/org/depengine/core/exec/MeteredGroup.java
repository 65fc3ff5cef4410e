package org.depengine.core.exec;

import org.depengine.api.EngineMetrics;

/**
 * What every group of {@link EngineMetrics#groups()} shares: its name, its sampled timings at its engine's
 * interval ({@link OpTimings}), and its registration with the engine's {@link EngineCounters} when the engine
 * keeps them ({@link EngineCounters.Owner}).
 */
public abstract class MeteredGroup implements EngineMetrics.Group {
    private final String name;
    private final EngineCounters counters; // null: the engine keeps none
    /** The group's sampled timings. */
    protected final OpTimings timings;

    /**
     * @param engine the owning engine
     * @param name the group's name
     */
    protected MeteredGroup(Object engine, String name) {
        this.name = name;
        this.counters = engine instanceof EngineCounters.Owner o ? o.counters() : null;
        this.timings = counters != null ? counters.newTimings() : new OpTimings(0);
    }

    /** Registers the group with its engine's counters; the subclass calls it last in its constructor. */
    protected final void registerWithEngine() {
        if (counters != null) {
            counters.add(this);
        }
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final EngineMetrics.Timing runTime() {
        return timings.runTime();
    }

    @Override
    public final EngineMetrics.Timing queueWait() {
        return timings.queueWait();
    }
}
