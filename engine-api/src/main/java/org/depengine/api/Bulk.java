package org.depengine.api;

/**
 * An open bulk of one thread, made by {@link Engine#bulk(int)}: while it is open, consecutive
 * synchronous ops that thread pushes to the same context with the same property and priority are
 * merged into one op (see {@link Engine#bulk(int)} for the contract). Closing it pushes what it holds.
 *
 * <p>Only the thread that opened it may use it; {@link #close()} from another thread is refused.
 */
public interface Bulk extends AutoCloseable {

    /**
     * The largest number of ops merged into one.
     *
     * @return the size given to {@link Engine#bulk(int)}
     */
    int size();

    /**
     * Pushes the ops held so far as one op now, without closing the bulk.
     *
     * @throws IllegalStateException if called from another thread than the one that opened it, or
     *     after {@link #close()}; or if the engine refused the merged op (it was closed meanwhile)
     */
    void flush();

    /**
     * Pushes the ops held and ends the bulk: later pushes of this thread are pushed one by one again.
     * Idempotent.
     *
     * @throws IllegalStateException if called from another thread than the one that opened it (the
     *     bulk stays open), or if the engine refused the merged op
     */
    @Override
    void close();
}
