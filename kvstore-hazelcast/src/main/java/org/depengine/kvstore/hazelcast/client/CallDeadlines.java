package org.depengine.kvstore.hazelcast.client;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The timeouts of a table's calls in flight: one periodic task of the timer (every {@value #SWEEP_MS} ms)
 * runs the expiry of each call past its deadline. A task scheduled and cancelled per call would wake the
 * timer thread twice at each push on a 2-core machine, where that thread competes with Hazelcast's for
 * the cores. A call that completes leaves at once, so nothing holds its value. Thread-safe.
 */
final class CallDeadlines {
    /** How often the calls are looked at: a call fails at most this much after its deadline. */
    static final long SWEEP_MS = 100;

    private record Expiry(long deadline, Runnable onExpiry) {
    }

    private final Map<CompletableFuture<?>, Expiry> open = new ConcurrentHashMap<>();

    /** Starts the periodic task on {@code timer}; it ends when the timer shuts down. */
    CallDeadlines(ScheduledExecutorService timer) {
        timer.scheduleWithFixedDelay(this::sweep, SWEEP_MS, SWEEP_MS, TimeUnit.MILLISECONDS);
    }

    /** Runs {@code onExpiry} (which should complete {@code call}) if {@code call} is not done within {@code timeoutMillis}. */
    void add(CompletableFuture<?> call, long timeoutMillis, Runnable onExpiry) {
        open.put(call, new Expiry(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis), onExpiry));
        call.whenComplete((v, e) -> open.remove(call));
    }

    private void sweep() {
        long now = System.nanoTime();
        open.forEach((call, x) -> {
            if (now - x.deadline() >= 0) {
                x.onExpiry().run();
            }
        });
    }
}
