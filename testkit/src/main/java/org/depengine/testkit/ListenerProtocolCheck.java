package org.depengine.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.depengine.api.listen.OpInfo;
import org.depengine.api.listen.OpListener;

/**
 * The listener of the configurations with one attached ({@link EngineSetup.Configuration#listener()}):
 * checks, for the engine it is attached to, the order {@link OpListener} promises (pushed, then ready,
 * then started, then launched for a device op, then exactly one finished) and, once the engine closed,
 * that every op pushed was finished and {@code closed} came once. Thread-safe and non-blocking, as a
 * listener must be.
 */
final class ListenerProtocolCheck implements OpListener {
    private static final int MAX_VIOLATIONS = 10;

    private enum Seen { PUSHED, READY, STARTED, LAUNCHED }

    private final Map<Long, Seen> live = new ConcurrentHashMap<>();
    private final List<String> violations = new ArrayList<>(); // guarded by itself
    private final AtomicInteger closed = new AtomicInteger();

    @Override
    public void pushed(OpInfo op, long nanoTime) {
        if (live.putIfAbsent(op.id(), Seen.PUSHED) != null) {
            violation(op, "pushed twice");
        }
    }

    @Override
    public void ready(OpInfo op, long nanoTime) {
        advance(op, Seen.PUSHED, Seen.READY);
    }

    @Override
    public void started(OpInfo op, long nanoTime) {
        advance(op, Seen.READY, Seen.STARTED);
    }

    @Override
    public void launched(OpInfo op, long nanoTime) {
        advance(op, Seen.STARTED, Seen.LAUNCHED);
    }

    @Override
    public void finished(OpInfo op, long nanoTime) {
        if (live.remove(op.id()) == null) {
            violation(op, "finished without being pushed, or finished twice");
        }
    }

    @Override
    public void closed() {
        closed.incrementAndGet();
    }

    private void advance(OpInfo op, Seen from, Seen to) {
        if (!live.replace(op.id(), from, to)) {
            violation(op, to.name().toLowerCase() + " when last seen " + live.get(op.id()) + " (expected " + from.name().toLowerCase() + ")");
        }
    }

    private void violation(OpInfo op, String what) {
        synchronized (violations) {
            if (violations.size() < MAX_VIOLATIONS) {
                violations.add("op '" + op.name() + "' #" + op.id() + ": " + what);
            }
        }
    }

    /**
     * What the listener saw wrong, for an engine that has closed: order violations, ops never finished,
     * and {@code closed} not told exactly once. Empty when all is well.
     */
    List<String> problemsAfterClose() {
        List<String> out;
        synchronized (violations) {
            out = new ArrayList<>(violations);
        }
        live.forEach((id, seen) -> out.add("op #" + id + " was reported " + seen.name().toLowerCase() + " and never finished"));
        if (closed.get() != 1) {
            out.add("closed() was called " + closed.get() + " times, expected once");
        }
        return out;
    }
}
