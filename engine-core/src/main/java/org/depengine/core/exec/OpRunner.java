package org.depengine.core.exec;

import org.depengine.api.device.Stream;
import org.depengine.core.tracker.OpBlock;

/** Runs one ready op on the calling worker; implemented by the engine's dispatch core. */
@FunctionalInterface
public interface OpRunner {
    /**
     * Runs {@code op}; never throws (failures become the op's).
     *
     * @param stream the worker's own stream, or null to use the device's shared stream
     */
    void run(OpBlock op, Stream stream);
}
