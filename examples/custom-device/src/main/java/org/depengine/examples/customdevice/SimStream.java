package org.depengine.examples.customdevice;

import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.depengine.api.device.Event;
import org.depengine.api.device.Stream;
import org.depengine.api.device.StreamKind;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lane of a {@link SimDevice}: one thread of its own ({@link #laneThreadName()}) runs what is
 * enqueued, in enqueue order. {@link #enqueue} is the plugin's "kernel launch": it returns at once and
 * the command runs later on the lane, taking at least the device's latency. Markers ({@link #record},
 * {@link #onComplete}) and waits ({@link #waitFor}) are lane commands too, without latency, so they
 * take effect in order with the work.
 *
 * <p>A command that throws does not stop the lane: the first such error is kept for
 * {@link #takeAsyncError()}. Thread-safe; made by {@link SimDevice#createStream}.
 */
public final class SimStream implements Stream {
    private static final Logger LOG = LoggerFactory.getLogger(SimStream.class);
    private static final long CLOSE_WAIT_SECONDS = 10;

    private final SimDevice device;
    private final StreamKind kind;
    private final String name;
    private final String threadName;
    private final ThreadPoolExecutor lane;
    private final AtomicLong commandsRun = new AtomicLong();
    private final AtomicReference<Throwable> asyncError = new AtomicReference<>();

    SimStream(SimDevice device, StreamKind kind, int number) {
        this.device = device;
        this.kind = kind;
        String k = kind.name().toLowerCase(Locale.ROOT).replace('_', '-');
        this.name = device.context() + "/" + k + "#" + number;
        this.threadName = device.context().deviceType() + device.context().deviceId() + "-" + k + "#" + number;
        this.lane = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true); // a lane never keeps the JVM alive
            return t;
        });
    }

    @Override
    public SimDevice device() {
        return device;
    }

    @Override
    public StreamKind kind() {
        return kind;
    }

    /** This stream's name, e.g. {@code sim:0/compute#1}. */
    public String name() {
        return name;
    }

    /** The name of the thread that runs this lane's commands, e.g. {@code sim0-compute#1}. */
    public String laneThreadName() {
        return threadName;
    }

    /** How many commands ({@link #enqueue}) this lane has run. */
    public long commandsRun() {
        return commandsRun.get();
    }

    /**
     * Launches a command: {@code work} runs later on this lane's thread, after the commands enqueued
     * before it, and the lane is busy for at least the device's latency. Returns at once.
     *
     * @param what names the command in error messages
     * @throws IllegalStateException if the stream is closed
     */
    public void enqueue(String what, Runnable work) {
        Objects.requireNonNull(what, "what");
        Objects.requireNonNull(work, "work");
        submit(() -> {
            long until = System.nanoTime() + device.latencyNanos();
            try {
                work.run();
            } catch (Throwable t) {
                keep(new IllegalStateException("command '" + what + "' failed on " + name, t));
            }
            // The simulated device time: the lane is busy until then, the enqueuing thread is not.
            for (long left = until - System.nanoTime(); left > 0; left = until - System.nanoTime()) {
                LockSupport.parkNanos(left);
            }
            commandsRun.incrementAndGet();
            device.commandRan();
        });
    }

    /** Nothing to bind: any thread may enqueue on any lane. */
    @Override
    public void bindToCurrentThread() {
        // A simulated device has no per-thread state.
    }

    /** A marker: done when the lane reaches it, i.e. after everything enqueued before this call. */
    @Override
    public Event record() {
        SimEvent e = new SimEvent(this);
        submit(e::signal);
        return e;
    }

    /**
     * Later commands on this lane wait for {@code event}. An event of a lane of the same device is
     * waited for by this lane's thread (a device-side wait: the caller returns at once); any other
     * event is awaited here, blocking the caller.
     */
    @Override
    public void waitFor(Event event) {
        Objects.requireNonNull(event, "event");
        if (event instanceof SimEvent e && e.stream().device() == device) {
            submit(e::await);
        } else {
            event.await();
        }
    }

    /**
     * Runs {@code callback} on this lane's thread once everything enqueued before the call has run. A
     * callback that throws is logged and kept for {@link #takeAsyncError()}.
     */
    @Override
    public void onComplete(Runnable callback) {
        Objects.requireNonNull(callback, "callback");
        submit(() -> {
            try {
                callback.run();
            } catch (Throwable t) {
                LOG.error("{}: completion callback failed", name, t);
                keep(t);
            }
        });
    }

    @Override
    public void synchronize() {
        record().await();
    }

    @Override
    public Throwable takeAsyncError() {
        return asyncError.getAndSet(null);
    }

    /**
     * Runs what is already enqueued (callbacks included), then stops the lane's thread. Idempotent.
     */
    @Override
    public void close() {
        lane.shutdown();
        try {
            if (!lane.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS)) {
                LOG.warn("{}: lane still busy {} s after close; leaving its daemon thread", name, CLOSE_WAIT_SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void submit(Runnable command) {
        try {
            lane.execute(command);
        } catch (RejectedExecutionException e) {
            throw new IllegalStateException(name + " is closed", e);
        }
    }

    private void keep(Throwable t) {
        if (!asyncError.compareAndSet(null, t)) {
            LOG.warn("{}: further error while an earlier one is not taken yet", name, t);
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
