package org.depengine.engine.pooled;

import java.util.List;
import java.util.Map;
import org.depengine.api.FnProperty;
import org.depengine.api.spi.EngineConfig;
import org.depengine.core.AbstractEngine;
import org.depengine.core.exec.WorkerGroup;
import org.depengine.core.tracker.OpBlock;

/**
 * MXNet's ThreadedEnginePooled: one shared FIFO of ready ops with {@code depengine.pooled.workers} threads, and one
 * for the copy properties with {@code depengine.pooled.copyWorkers} threads, whatever the device. An
 * {@link FnProperty#ASYNC} op ready at push time runs inline on the pusher. Priorities are ignored.
 */
final class PooledEngine extends AbstractEngine {
    private static final long JOIN_MILLIS = 10_000;

    private final WorkerGroup compute;
    private final WorkerGroup copy;

    PooledEngine(EngineConfig config) {
        super(PooledEngineProvider.NAME, config);
        int workers = config.get(PooledSettings.WORKERS);
        int copyWorkers = config.get(PooledSettings.COPY_WORKERS);
        compute = new WorkerGroup(this, threadName("worker"), workers, false, this::run);
        copy = new WorkerGroup(this, threadName("copy"), copyWorkers, false, this::run);
    }

    @Override
    protected void addCounters(Map<String, Long> counters) {
        WorkerGroup.addCounters(List.of(compute, copy), counters);
    }

    @Override
    protected void execute(OpBlock op, boolean pusherThread) {
        FnProperty prop = op.def().prop();
        if (pusherThread && prop == FnProperty.ASYNC) {
            run(op, null);
        } else if (prop.isCopy()) {
            copy.submit(op);
        } else {
            compute.submit(op);
        }
    }

    @Override
    protected void stopWorkers() {
        compute.shutdown(JOIN_MILLIS);
        copy.shutdown(JOIN_MILLIS);
    }
}
