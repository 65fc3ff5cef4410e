package org.depengine.core.dispatch;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.depengine.api.listen.OpInfo;
import org.depengine.api.listen.OpListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls every registered listener in turn. Whatever a listener throws ({@link Error}s included) is
 * contained here, the one place the engine calls listeners from: the op goes on, the engine's
 * accounting never depends on a listener returning normally. A listener is reported at WARN on its
 * first throw and detached from the engine at its {@value #DETACH_AFTER}th. Immutable: the engine
 * swaps in a new fan-out on add/remove; the per-listener record is shared between them.
 */
public final class ListenerFanout implements OpListener {
    private static final Logger LOG = LoggerFactory.getLogger(ListenerFanout.class);
    /** Throws after which a listener is detached. */
    static final int DETACH_AFTER = 3;

    /** One attached listener and what it threw so far. */
    static final class Entry {
        final OpListener listener;
        final AtomicInteger throwsCount = new AtomicInteger();
        volatile boolean detached;

        Entry(OpListener listener) {
            this.listener = listener;
        }
    }

    final Entry[] entries;
    private final Consumer<OpListener> detach;
    /** Whether some listener overrides {@link OpListener#pushed}: if none does, a push reads no clock for it. */
    public final boolean wantsPushed;

    /**
     * @param entries the listeners, in call order
     * @param detach removes a listener from the engine (called once per listener that keeps throwing)
     */
    ListenerFanout(Entry[] entries, Consumer<OpListener> detach) {
        this.entries = entries;
        this.detach = detach;
        this.wantsPushed = Arrays.stream(entries).anyMatch(e -> overridesPushed(e.listener));
    }

    /** Whether {@code l}'s class implements {@code pushed} itself (the interface's default does nothing). */
    private static boolean overridesPushed(OpListener l) {
        try {
            return l.getClass().getMethod("pushed", OpInfo.class, long.class).getDeclaringClass() != OpListener.class;
        } catch (NoSuchMethodException | SecurityException e) {
            return true; // cannot tell: call it
        }
    }

    /** {@code current} (null: none) with {@code l} added last. */
    public static ListenerFanout with(ListenerFanout current, OpListener l, Consumer<OpListener> detach) {
        Entry[] now = current == null ? new Entry[0] : current.entries;
        Entry[] next = Arrays.copyOf(now, now.length + 1);
        next[now.length] = new Entry(l);
        return new ListenerFanout(next, detach);
    }

    /** {@code current} (null: none) without {@code l}; null if none is left, {@code current} if it was not there. */
    public static ListenerFanout without(ListenerFanout current, OpListener l, Consumer<OpListener> detach) {
        if (current == null) {
            return null;
        }
        Entry[] next = Arrays.stream(current.entries).filter(x -> x.listener != l).toArray(Entry[]::new);
        if (next.length == current.entries.length) {
            return current;
        }
        return next.length == 0 ? null : new ListenerFanout(next, detach);
    }

    private void each(String event, Consumer<OpListener> call) {
        for (Entry e : entries) {
            if (e.detached) {
                continue; // ops pushed before the detach still hold this fan-out
            }
            try {
                call.accept(e.listener);
            } catch (Throwable t) {
                threw(e, event, t);
            }
        }
    }

    private void threw(Entry e, String event, Throwable t) {
        int n = e.throwsCount.incrementAndGet();
        try {
            if (n == 1) {
                LOG.warn("listener {} threw from {}; contained (the op goes on). It is detached if it throws {} times",
                        e.listener, event, DETACH_AFTER, t);
            }
            if (n == DETACH_AFTER) {
                e.detached = true;
                LOG.debug("listener {} detached after {} throws", e.listener, n);
                detach.accept(e.listener);
            }
        } catch (Throwable reporting) {
            // Logging a StackOverflowError can overflow again: the listener is contained regardless.
            if (n >= DETACH_AFTER) {
                e.detached = true;
            }
        }
    }

    @Override
    public void pushed(OpInfo op, long t) {
        each("pushed", l -> l.pushed(op, t));
    }

    @Override
    public void ready(OpInfo op, long t) {
        each("ready", l -> l.ready(op, t));
    }

    @Override
    public void started(OpInfo op, long t) {
        each("started", l -> l.started(op, t));
    }

    @Override
    public void launched(OpInfo op, long t) {
        each("launched", l -> l.launched(op, t));
    }

    @Override
    public void finished(OpInfo op, long t) {
        each("finished", l -> l.finished(op, t));
    }

    @Override
    public void memberFinished(OpInfo bulk, int index, String memberName, OpInfo.Outcome outcome,
                               long startNanos, long endNanos) {
        each("memberFinished", l -> l.memberFinished(bulk, index, memberName, outcome, startNanos, endNanos));
    }

    @Override
    public void released(OpInfo producer, OpInfo consumer) {
        each("released", l -> l.released(producer, consumer));
    }

    @Override
    public void closed() {
        each("closed", OpListener::closed);
    }
}
