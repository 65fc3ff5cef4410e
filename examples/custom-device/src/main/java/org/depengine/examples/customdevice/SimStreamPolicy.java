package org.depengine.examples.customdevice;

import org.depengine.api.device.Stream;
import org.depengine.api.device.StreamPolicy;

/**
 * An op on a sim lane only enqueues commands: it is launched when its function returns and done when
 * the lane has run them, which {@link Stream#onComplete} reports from the lane's thread.
 */
final class SimStreamPolicy implements StreamPolicy {
    static final SimStreamPolicy INSTANCE = new SimStreamPolicy();

    private SimStreamPolicy() {
    }

    @Override
    public boolean doneOnReturn() {
        return false;
    }

    @Override
    public void whenDone(Stream stream, Runnable done) {
        stream.onComplete(done);
    }
}
