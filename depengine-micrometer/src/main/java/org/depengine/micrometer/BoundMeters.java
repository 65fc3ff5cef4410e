package org.depengine.micrometer;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * The meters one binder registered, by registry, so that closing the binder removes them; and the check
 * that refuses to bind over meters of the same name and tags (Micrometer would return the existing meter
 * silently, and the second source would never be seen).
 */
final class BoundMeters {
    private final String binder;
    private final List<Registered> registered = new ArrayList<>(); // guarded by this
    private boolean closed; // guarded by this

    private record Registered(MeterRegistry registry, Meter meter) {
    }

    /** @param binder what binds, for error messages, e.g. {@code "EngineMeters of engine 'perdevice'"} */
    BoundMeters(String binder) {
        this.binder = binder;
    }

    synchronized void checkOpen() {
        if (closed) {
            throw new IllegalStateException(binder + " is closed; make a new one to bind again");
        }
    }

    synchronized boolean isClosed() {
        return closed;
    }

    <T> void counter(MeterRegistry r, String name, Tags tags, T obj, ToDoubleFunction<T> f, String unit, String help) {
        free(r, name, tags);
        add(r, FunctionCounter.builder(name, obj, f).tags(tags).baseUnit(unit).description(help).register(r));
    }

    <T> void gauge(MeterRegistry r, String name, Tags tags, T obj, ToDoubleFunction<T> f, String unit, String help) {
        free(r, name, tags);
        add(r, Gauge.builder(name, obj, f).tags(tags).baseUnit(unit).description(help).register(r));
    }

    <T> void timer(MeterRegistry r, String name, Tags tags, T obj, ToLongFunction<T> count, ToDoubleFunction<T> totalNanos,
                   String help) {
        free(r, name, tags);
        add(r, FunctionTimer.builder(name, obj, count, totalNanos, TimeUnit.NANOSECONDS).tags(tags).description(help)
                .register(r));
    }

    /** Removes every meter registered, from its registry; later binds are refused. Idempotent. */
    void close() {
        List<Registered> remove;
        synchronized (this) {
            closed = true;
            remove = new ArrayList<>(registered);
            registered.clear();
        }
        for (Registered m : remove) {
            m.registry.remove(m.meter);
        }
    }

    private synchronized void add(MeterRegistry r, Meter m) {
        registered.add(new Registered(r, m));
    }

    private void free(MeterRegistry r, String name, Tags tags) {
        List<Tag> mine = tags.stream().sorted().toList();
        for (Meter m : r.find(name).tags(tags).meters()) {
            if (m.getId().getTags().stream().sorted().toList().equals(mine)) {
                throw new IllegalStateException(binder + ": registry " + r.getClass().getSimpleName()
                        + " already has a meter " + name + " " + mine + " (the same engine or store bound twice, or two engines or stores "
                        + "of one name): give each binder a distinguishing tag, e.g. new EngineMeters(engine, Tags.of(\"job\", "
                        + "\"...\"))");
            }
        }
    }
}
