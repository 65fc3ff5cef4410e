package org.depengine.benchmarks.contender;

import org.depengine.api.device.Stream;
import org.depengine.benchmarks.workload.OpBody;
import org.depengine.benchmarks.workload.Workload;

/**
 * The lower bound: every op's body in push order on the calling thread, no dependency tracking. For
 * device workloads the bodies enqueue on one stream of this contender's and {@link #awaitAll()}
 * synchronizes it.
 */
final class SerialContender implements Contender {
    private final String name;
    private final Workload workload;
    private final OpBody body;
    private final Stream stream;

    /**
     * @param stream the stream device bodies enqueue on (closed with this contender), or null for CPU workloads
     */
    SerialContender(String name, Workload workload, Stream stream) {
        this.name = name;
        this.workload = workload;
        this.body = workload.body();
        this.stream = stream;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void reset() {
        workload.beforeRun();
    }

    @Override
    public void submit(int from, int to) {
        for (int i = from; i < to; i++) {
            body.run(i, stream);
        }
    }

    @Override
    public void awaitAll() {
        if (stream != null) {
            stream.synchronize();
        }
    }

    @Override
    public void close() {
        if (stream != null) {
            stream.close();
        }
    }
}
