package org.depengine.engine.pooled;

import java.util.List;
import java.util.Map;
import org.depengine.api.FnProperty;
import org.depengine.api.spi.EngineConfig;
import org.depengine.core.AbstractEngine;
import org.depengine.core.DispatchPolicy;
import org.depengine.core.EngineRuntime;
import org.depengine.core.device.EngineDevice;
import org.depengine.core.exec.WorkerGroup;
import org.depengine.core.tracker.OpBlock;

/**
 * MXNet's ThreadedEnginePooled: one shared FIFO of ready ops with {@code depengine.pooled.workers} threads, and one
 * for the copy properties with {@code depengine.pooled.copyWorkers} threads, whatever the device. An
 * {@link FnProperty#ASYNC} op ready at push time runs inline on the pusher. Priorities are ignored.
 */
final class PooledEngine extends AbstractEngine {
    PooledEngine(EngineConfig config) {
        super(PooledEngineProvider.NAME, config, Policy::new);
    }

    /** Where a pooled engine's ready op runs: its property's worker group. */
    private static final class Policy implements DispatchPolicy {
        private static final long JOIN_MILLIS = 10_000;

        private final EngineRuntime runtime;
        private final WorkerGroup compute;
        private final WorkerGroup copy;

        Policy(EngineRuntime runtime) {
            this.runtime = runtime;
            EngineConfig config = runtime.config();
            compute = new WorkerGroup(runtime.engine(), runtime.threadName("worker"), config.get(PooledSettings.WORKERS),
                    false, runtime);
            copy = new WorkerGroup(runtime.engine(), runtime.threadName("copy"), config.get(PooledSettings.COPY_WORKERS),
                    false, runtime);
        }

        @Override
        public void route(OpBlock op, EngineDevice device) {
            // None: the group is chosen at dispatch, from the op's property.
        }

        @Override
        public void dispatch(OpBlock op, boolean onPusher) {
            FnProperty prop = op.def().prop();
            if (onPusher && prop == FnProperty.ASYNC) {
                runtime.run(op, null);
            } else if (prop.isCopy()) {
                copy.submit(op);
            } else {
                compute.submit(op);
            }
        }

        @Override
        public void stop() {
            compute.shutdown(JOIN_MILLIS);
            copy.shutdown(JOIN_MILLIS);
        }

        @Override
        public void addCounters(Map<String, Long> counters) {
            WorkerGroup.addCounters(List.of(compute, copy), counters);
        }
    }
}
