package org.depengine.kvstore.spi;

import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * A store's open state and the gate its calls pass: a call holds the read side while it checks that the
 * store is open and pushes its ops, and {@link #close()} takes the write side, so it waits for the calls
 * in progress (their ops are pushed before the fence close then waits on) and no call passes the check
 * after it. Thread-safe.
 */
final class Gate {
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private volatile boolean closed;

    /** Whether {@link #close()} was called. */
    boolean isClosed() {
        return closed;
    }

    /** Runs {@code body} holding the read side: {@link #close()} waits for it. */
    void pass(Runnable body) {
        lock.readLock().lock();
        try {
            body.run();
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * Marks the store closed once the calls holding the read side have left.
     *
     * @return whether this call closed it (false: it was closed already)
     */
    boolean close() {
        lock.writeLock().lock();
        try {
            if (closed) {
                return false;
            }
            closed = true;
            return true;
        } finally {
            lock.writeLock().unlock();
        }
    }
}
