package org.depengine.core;

import java.util.function.Consumer;
import org.depengine.api.listen.OpInfo;
import org.depengine.api.listen.OpListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls every registered listener in turn; a listener that throws is logged and skipped, never
 * allowed to fail an op or a worker. Immutable: the engine swaps in a new fan-out on add/remove.
 */
final class ListenerFanout implements OpListener {
    private static final Logger LOG = LoggerFactory.getLogger(ListenerFanout.class);

    final OpListener[] listeners;

    ListenerFanout(OpListener[] listeners) {
        this.listeners = listeners;
    }

    private void each(String event, Consumer<OpListener> call) {
        for (OpListener l : listeners) {
            try {
                call.accept(l);
            } catch (RuntimeException e) {
                LOG.warn("listener {} threw from {}; ignored", l, event, e);
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
    public void released(OpInfo producer, OpInfo consumer) {
        each("released", l -> l.released(producer, consumer));
    }
}
