package org.depengine.device.common;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.depengine.api.Context;
import org.depengine.api.device.Event;
import org.depengine.api.device.StreamKind;

/**
 * A third backend written as {@link NativeDevice} asks: native calls only. Its "driver" appends each
 * call to {@link #log}, so tests see the order the skeleton makes them in; a call named in
 * {@link #failing} throws instead.
 */
final class LogDevice extends NativeDevice<LogDevice.LogStream, LogDevice.LogBuffer> {
    final List<String> log = Collections.synchronizedList(new ArrayList<>());
    volatile String failing = "";
    volatile boolean completionsTouchNative = true;
    private final AtomicInteger handles = new AtomicInteger();
    private final Duration callbackWait;

    LogDevice(Duration callbackWait) {
        super(Context.of("log", 0), "log device", "completion");
        this.callbackWait = callbackWait;
    }

    private void call(String what) {
        if (failing.equals(what)) {
            throw new IllegalStateException("native call failed: " + what);
        }
        log.add(what);
    }

    @Override
    protected LogStream newStream(StreamKind kind, int number) {
        call("create queue " + number);
        return new LogStream(this, kind, number);
    }

    @Override
    protected LogBuffer newBuffer(long bytes) {
        int handle = handles.incrementAndGet();
        call("alloc mem " + handle);
        return new LogBuffer(this, handle, bytes);
    }

    @Override
    protected void releaseNative() {
        call("release context");
    }

    @Override
    protected boolean completionsTouchNative() {
        return completionsTouchNative;
    }

    @Override
    protected Duration callbackWait() {
        return callbackWait;
    }

    /** Something else the device makes (as OpenCL's kernels), through {@link #whileOpen}. */
    String kernel(String name) {
        return whileOpen("build kernel '" + name + "'", () -> {
            call("build " + name);
            return name;
        });
    }

    /** Runs {@code task} on the completion thread (as a driver's completion callback would). */
    void complete(Runnable task) {
        completionThread().execute(task);
    }

    static final class LogStream extends AsyncStream<LogDevice, HandleEvent<Object>> {
        private final int number;

        LogStream(LogDevice device, StreamKind kind, int number) {
            super(device, kind, number);
            this.number = number;
        }

        @Override
        protected void release() {
            device().call("release queue " + number);
        }

        @Override
        public void bindToCurrentThread() {
            checkOpen();
        }

        @Override
        public Event record() {
            throw new UnsupportedOperationException("events are not part of the lifecycle under test");
        }

        @Override
        public void waitFor(Event event) {
            throw new UnsupportedOperationException("events are not part of the lifecycle under test");
        }

        @Override
        public void onComplete(Runnable callback) {
            checkOpen();
            device().complete(() -> runCallback(callback));
        }

        @Override
        public void synchronize() {
            checkOpen();
        }
    }

    static final class LogBuffer extends HandleBuffer<LogDevice, Integer> {
        LogBuffer(LogDevice device, int handle, long size) {
            super(device, handle, size);
        }

        int mem() {
            return handle();
        }

        @Override
        protected void release(Integer handle) {
            device().call("free mem " + handle);
        }
    }
}
