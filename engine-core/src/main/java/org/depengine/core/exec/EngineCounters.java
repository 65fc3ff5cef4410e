package org.depengine.core.exec;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import org.depengine.api.EngineMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An engine's {@link EngineMetrics}: the engine-wide op counts and the registry of its worker groups.
 *
 * <p>Nothing here is written on a successful push: the ops pushed are the engine's op-id counter, which
 * every push increments anyway, less the ids that went to no user op ({@link #notPushed}: the engine's
 * wait markers, refused pushes). Failures, skips and replays are counted where they happen, off the
 * common path, in striped counters. Thread-safe.
 */
public final class EngineCounters implements EngineMetrics {
    /** An engine that keeps counters: its worker groups register with them when made. */
    public interface Owner {
        /**
         * The engine's counters.
         *
         * @return the counters
         */
        EngineCounters counters();
    }

    private static final Logger LOG = LoggerFactory.getLogger(EngineCounters.class);

    private final String engine;
    private final int timingInterval;
    private final LongSupplier opIds;
    private final LongSupplier pending;
    private final IntSupplier waiting;
    private final LongAdder notPushed = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final LongAdder skipped = new LongAdder();
    private final LongAdder replayed = new LongAdder();
    // Guarded by this for the add-and-snapshot steps, so that each listener hears of each group once.
    private final List<Group> groups = new CopyOnWriteArrayList<>();
    private final List<Consumer<? super Group>> listeners = new CopyOnWriteArrayList<>();

    /**
     * @param engine the engine's name, for log lines
     * @param timingInterval one op in this many is timed (0: none); see {@link OpTimings}
     * @param opIds the engine's op-id counter: the ids handed out so far
     * @param pending the ops pushed and not finished now
     * @param waiting the threads blocked in waits now
     */
    public EngineCounters(String engine, int timingInterval, LongSupplier opIds, LongSupplier pending,
                          IntSupplier waiting) {
        this.engine = Objects.requireNonNull(engine, "engine");
        this.timingInterval = OpTimings.checkInterval(timingInterval);
        this.opIds = opIds;
        this.pending = pending;
        this.waiting = waiting;
    }

    /** A new group's timings, at this engine's sampling interval. */
    public OpTimings newTimings() {
        return new OpTimings(timingInterval);
    }

    /** {@code n} op ids went to no user op (a wait marker, a push refused after it took its id). */
    public void notPushed(long n) {
        notPushed.add(n);
    }

    /** An op failed itself. */
    public void failed() {
        failed.increment();
    }

    /** An op was skipped. */
    public void skipped() {
        skipped.increment();
    }

    /** A replay pushed {@code n} ops. */
    public void replayed(int n) {
        replayed.add(n);
    }

    /** Registers a new group and tells the listeners, on the calling thread. */
    public void add(Group g) {
        List<Consumer<? super Group>> tell;
        synchronized (this) {
            groups.add(g);
            tell = new ArrayList<>(listeners);
        }
        tell.forEach(l -> notify(l, g));
    }

    @Override
    public long opsPushed() {
        return opIds.getAsLong() - notPushed.sum();
    }

    @Override
    public long opsFailed() {
        return failed.sum();
    }

    @Override
    public long opsSkipped() {
        return skipped.sum();
    }

    @Override
    public long opsReplayed() {
        return replayed.sum();
    }

    @Override
    public long pendingOps() {
        return pending.getAsLong();
    }

    @Override
    public int waitingThreads() {
        return waiting.getAsInt();
    }

    @Override
    public int timingSampleInterval() {
        return timingInterval;
    }

    @Override
    public List<Group> groups() {
        return List.copyOf(groups);
    }

    @Override
    public void addGroupListener(Consumer<? super Group> listener) {
        Objects.requireNonNull(listener, "listener");
        List<Group> now;
        synchronized (this) {
            listeners.add(listener);
            now = new ArrayList<>(groups);
        }
        now.forEach(g -> notify(listener, g));
    }

    @Override
    public void removeGroupListener(Consumer<? super Group> listener) {
        listeners.remove(listener);
    }

    private void notify(Consumer<? super Group> l, Group g) {
        try {
            l.accept(g);
        } catch (RuntimeException e) {
            LOG.warn("engine '{}': a group listener failed on group {}; it is not told again of that group", engine,
                    g.name(), e);
        }
    }

    @Override
    public String toString() {
        return "EngineMetrics[" + engine + ": pushed " + opsPushed() + ", failed " + opsFailed() + ", skipped "
                + opsSkipped() + ", replayed " + opsReplayed() + ", groups " + groups.size() + "]";
    }
}
