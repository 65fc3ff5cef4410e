package org.depengine.profiler;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** Named long-lived threads, so records land in the rings (lanes) a test chooses. */
final class Workers implements AutoCloseable {
    private final Map<String, ExecutorService> threads = new HashMap<>();

    void on(String name, Runnable body) {
        ExecutorService ex = threads.computeIfAbsent(name, n -> Executors.newSingleThreadExecutor(r -> new Thread(r, n)));
        try {
            ex.submit(body).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        } catch (ExecutionException e) {
            throw new AssertionError(e.getCause());
        }
    }

    @Override
    public void close() {
        threads.values().forEach(ExecutorService::shutdownNow);
    }
}
