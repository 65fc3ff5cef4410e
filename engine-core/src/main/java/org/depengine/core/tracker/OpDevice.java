package org.depengine.core.tracker;

import org.depengine.api.Context;
import org.depengine.api.device.Stream;
import org.depengine.api.device.StreamKind;
import org.depengine.api.device.StreamPolicy;

/**
 * The device an op runs on ({@link OpBlock#device()}), as the dispatch core uses it: set at push and
 * fixed for the op's run. Implemented by the core's per-engine view of a device; the tracker only
 * carries it (so it needs no dependency on the core). Every call into the device plugin behind it is
 * guarded: a plugin that fails gives an {@link org.depengine.api.EngineException} for the op that asked.
 */
public interface OpDevice {
    /** The device's context. */
    Context context();

    /** Whether a stream of this device can wait for an event of another of its streams on the device. */
    boolean supportsStreamWait();

    /**
     * The policy for streams of that kind.
     *
     * @throws org.depengine.api.EngineException if the plugin throws or gives none
     */
    StreamPolicy policy(StreamKind kind);

    /**
     * The device's shared stream of that kind (for ops that run without a worker-owned stream), bound
     * to the calling thread.
     *
     * @throws org.depengine.api.EngineException if the plugin cannot make or bind it
     */
    Stream boundSharedStream(StreamKind kind);

    /**
     * Whether this is the first time the plugin reported an op of this device done twice (that report
     * is logged at WARN, later ones at DEBUG).
     */
    boolean firstDoneTwice();
}
