package org.depengine.core.replay;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Which thread records a capture ({@link CaptureSession}), for every engine of the JVM: a capture
 * must see its thread's pushes to other engines too, to refuse them. The check on every push is one
 * volatile read while no capture is open anywhere, and a thread-local read while one is.
 */
public final class Captures {
    private static final ThreadLocal<CaptureSession> RECORDING = new ThreadLocal<>();
    /** Captures open in the JVM: zero on the push path of a program that never captures. */
    private static final AtomicInteger OPEN = new AtomicInteger();

    private Captures() {
    }

    /** The capture the calling thread records, or null. */
    public static CaptureSession current() {
        return OPEN.get() == 0 ? null : RECORDING.get();
    }

    /** The calling thread starts recording {@code c}; the caller checked it records nothing yet. */
    static void started(CaptureSession c) {
        RECORDING.set(c);
        OPEN.incrementAndGet();
    }

    /** The calling thread, which recorded {@code c}, stops. */
    static void ended(CaptureSession c) {
        if (RECORDING.get() == c) {
            RECORDING.remove();
            OPEN.decrementAndGet();
        }
    }

    /**
     * Refuses {@code call} (a wait, a close, a bulk, a deletion, a nested capture, a replay) while the
     * calling thread records a capture.
     *
     * @throws IllegalStateException naming the call and the capture, and what to do instead
     */
    public static void refuse(String call) {
        refuse(call, null);
    }

    /**
     * As {@link #refuse(String)}, with {@code call} a {@link String#format} pattern over {@code arg},
     * formatted only for the refusal: the check costs what {@link #current()} costs.
     */
    public static void refuse(String call, Object arg) {
        CaptureSession c = current();
        if (c != null) {
            String what = arg == null ? call : String.format(call, arg);
            throw new IllegalStateException(what + " was called while this thread records " + c
                    + ": recording runs nothing, so it cannot wait, close, bulk, delete, replay, or capture again (captures do not nest). "
                    + "Close the capture (or take its graph()) first");
        }
    }
}
