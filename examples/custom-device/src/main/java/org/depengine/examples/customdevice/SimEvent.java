package org.depengine.examples.customdevice;

import java.util.concurrent.CountDownLatch;
import org.depengine.api.EngineException;
import org.depengine.api.device.Event;

/** A marker on a sim lane: done when the lane reaches it. Thread-safe. */
final class SimEvent implements Event {
    private final SimStream stream;
    private final CountDownLatch reached = new CountDownLatch(1);

    SimEvent(SimStream stream) {
        this.stream = stream;
    }

    SimStream stream() {
        return stream;
    }

    void signal() {
        reached.countDown();
    }

    @Override
    public boolean isDone() {
        return reached.getCount() == 0;
    }

    @Override
    public void await() {
        try {
            reached.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EngineException("interrupted while waiting for an event of " + stream, e);
        }
    }

    @Override
    public String toString() {
        return "SimEvent[" + stream + (isDone() ? ", done]" : ", pending]");
    }
}
