package org.depengine.api;

/**
 * A variable: the unit of dependency tracking. A variable holds no data of its own; it stands for
 * whatever state the ops that list it read or write (an array, a buffer, a random generator).
 *
 * <p>Variables are created by {@link Engine#newVariable()} and belong to that engine; passing one to
 * another engine is an {@link IllegalArgumentException}. After
 * {@link Engine#deleteVariable(SyncFn, Context, VarHandle)} a variable can no longer be used.
 *
 * <p>Thread-safety: every method may be called from any thread.
 */
public interface VarHandle {
    /**
     * The name given at creation, or a generated one ({@code "var#17"}); never null.
     *
     * @return the name given at creation, or a generated one ({@code "var#17"}); never null
     */
    String name();

    /**
     * The write count: the number of writes to this variable that have completed, starting at 0. A
     * contract, not a diagnostic: every write counts exactly once, whatever became of its op, on every
     * engine and device:
     * <ul>
     *   <li>an op that ran, or failed (its function threw, its callback reported a failure, its device
     *   work failed);</li>
     *   <li>an op skipped because an input carried a failure, or because it was pushed after
     *   {@link Engine#notifyShutdown()};</li>
     *   <li>each member of a {@linkplain Engine#bulk(int) bulk} that writes it, the members skipped after a
     *   failed one included, exactly as if each had been pushed alone;</li>
     *   <li>each op of a {@linkplain Graph#replay() replay} that writes it, the writes a replay orders
     *   by edges between its ops rather than on the variable's queue included;</li>
     *   <li>{@link Engine#deleteVariable}, itself a write.</li>
     * </ul>
     * A push that threw (a deleted variable, a closed engine) registered nothing and counts nothing.
     *
     * <p>A write counts when its op lets the variable go: at its completion, or, for a device op of an
     * engine that releases device ops at launch (the {@code perdevice} engine by default), when its work
     * was enqueued on its stream: its device work may still run ({@link Engine#waitForVar} waits for it).
     * Actions of a write's op before it let the variable go happen-before those of a thread that then
     * reads a count that includes the write. The value is a snapshot: ops still running may raise it.
     *
     * @return the number of completed writes
     */
    long version();
}
